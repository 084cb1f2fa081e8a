-- SPDX-License-Identifier: MIT
--
-- tests/ipfix/clickhouse-tables.sql - ClickHouse tables for libroceTel's
-- NVMe-oF I/O records on the fabric-scale path (README.md, "Fabric scale:
-- IPFIX to ClickHouse"):
--
--   switch agents --IPFIX--> nfacctd --JSON--> Kafka --> ClickHouse
--
-- The agents export their I/O records with the library's IPFIX encoder
-- (rtel_ipfix(3); rtel-analyze --ipfix does the same from captures).
-- nfacctd (pmacct) decodes them with the aggregate_primitives file of
-- `rtel-analyze --pmacct-primitives io` and an aggregate of
--
--   peer_src_ip, export_proto_sysid, src_host, dst_host, in_iface,
--   and every primitive of that file (flow_id among them, so that each
--   record stays one JSON object: nfacctd merges records of equal keys)
--
-- and publishes one JSON object per record (kafka_output: json; the print
-- plugin writes the same objects). ClickHouse reads them:
--
--   rtel_io_ingest   one column per key of those JSON objects, named as
--                    nfacctd prints them. ENGINE = Null here: what is
--                    inserted passes through to the materialized view and
--                    is not kept. Deployed, it is the Kafka consumer: the
--                    same columns with
--                      ENGINE = Kafka('BROKER:9092', 'TOPIC', 'GROUP',
--                                     'JSONEachRow')
--                    (the only line that changes).
--   rtel_io_mv       the materialized view that turns each I/O record of
--                    rtel_io_ingest into a row of rtel_io.
--   rtel_io          the I/O records, one row each, with the names and the
--                    meaning of rtel-analyze's JSON I/O records
--                    (rtel-analyze(1), rtel_io_record(3)).
--   rtel_points      the observation points: which agent, domain and
--                    observationPointId is which port, its name and its
--                    role (compute or storage side), filled by the
--                    deployer; tests/ipfix/segments.sql joins by it.
--
-- ClickHouse 18.16 (Debian 12's clickhouse-server) or later. Nanosecond
-- times are UInt64 ns since 1970 (the exporter's time base), durations
-- Int64 ns; the IPFIX "none" values (all ones for a time, -2^63 for a
-- duration, 4294967295 for an unknown QPN, rtel_ipfix(3)) become NULL, as
-- rtel-analyze's JSON leaves them out; so do the command's members of an
-- orphan (a response whose command was not seen). The JSON's words for
-- numbers (op, nvme_status_name: rtel_nvme_cmd_str(3)) are not here: the
-- numbers they name are (nvme_opcode, nvme_fctype, nvme_status).
--
-- tests/ipfix/clickhouse.py runs this file (clickhouse-client
-- --multiquery) in an empty database, loads nfacctd's JSON into
-- rtel_io_ingest, and checks the columns of rtel_io named as the members
-- of rtel-analyze's JSON I/O records against those records, one row per
-- record (by observation domain and flowId).

-- The observation points. One row per point; a later row for the same
-- point replaces it (ReplacingMergeTree: read it with FINAL).
--   exporter, observation_domain_id, observation_point_id
--       the agent's address as nfacctd sees it (peer_ip_src), the IPFIX
--       observation domain of its messages (export_proto_sysid) and the
--       point (observationPointId, the record's obs)
--   name    what to call it (rtel-analyze's NAME of the input)
--   role    'compute': the switch port facing the host; 'storage': the
--           port facing the storage; 'fabric': elsewhere, never joined
--           (RTEL_ROLE_*, rtel_ctx_set_obs_role(3))
CREATE TABLE rtel_points
(
    exporter String,
    observation_domain_id UInt32,
    observation_point_id UInt32,
    name String,
    role Enum8('unknown' = 0, 'compute' = 1, 'storage' = 2, 'fabric' = 3)
)
ENGINE = ReplacingMergeTree
ORDER BY (exporter, observation_domain_id, observation_point_id);

-- The I/O records (rtel_io_record(3)); each column is the member of
-- rtel-analyze's JSON I/O record of the same name, or says where it is
-- from.
CREATE TABLE rtel_io
(
    exporter String,                   -- peer_ip_src
    observation_domain_id UInt32,      -- export_proto_sysid
    observation_point_id UInt32,       -- observationPointId (obs)
    flow_id UInt64,                    -- flowId: the exporter's record number
    start_ns UInt64,                   -- t_cmd_ns, else (orphan) t_rsp_ns
    start_time DateTime,               -- start_ns in seconds (partitions)
    host String,                       -- the host's address (ip_src)
    target String,                     -- the target's address (ip_dst)
    port UInt32,                       -- the command's port (ingressInterface)
    state Enum8('complete' = 1, 'timeout' = 2, 'orphan' = 3,
                'evicted' = 4, 'truncated' = 5),
    flags UInt32,                      -- RTEL_IO_F_*: 1 IPv6, 2 in-capsule,
                                       -- 4 admin, 8 fabrics, 16 invalidate, 32 qid
    incapsule Nullable(UInt8),         -- flags & 2; NULL: an orphan
    host_qpn Nullable(UInt32),         -- NULL: not known
    target_qpn Nullable(UInt32),
    cid UInt16,
    qid Nullable(UInt16),              -- NULL: not known (flags & 32 clear)
    nvme_opcode Nullable(UInt8),       -- the NVMe opcode; NULL: an orphan
    nvme_fctype Nullable(UInt8),       -- the Fabrics command type (flags & 8),
                                       -- else NULL
    nvme_status UInt16,
    nsid Nullable(UInt32),             -- NULL: an orphan (as the next three)
    slba Nullable(UInt64),
    nlb Nullable(UInt32),
    bytes Nullable(UInt64),
    t_cmd_ns Nullable(UInt64),         -- C, R, D1/P1, Dn/Pn, Q (rtel-metrics(7))
    t_rsp_ns Nullable(UInt64),
    t_data_first_ns Nullable(UInt64),
    t_data_last_ns Nullable(UInt64),
    t_rdreq_ns Nullable(UInt64),
    iol_ns Nullable(Int64),            -- I/O latency R - C
    dal_ns Nullable(Int64),            -- data access latency
    dpl_ns Nullable(Int64),            -- data preparation latency (writes)
    xfer_ns Nullable(Int64),           -- transfer time
    coverage_start_ns Nullable(UInt64),
    coverage_end_ns Nullable(UInt64)   -- NULL while the port is measured
)
ENGINE = MergeTree
PARTITION BY toYYYYMMDD(start_time)
ORDER BY (exporter, observation_domain_id, observation_point_id, start_ns,
          flow_id);

-- What nfacctd publishes for each record: with the aggregate above, every
-- record, of whatever template, has all these keys (a record of another
-- type, a flow or a segment, has the I/O keys 0; rtel_io_mv leaves it out
-- by its nvme_io_state). The custom primitives come as decimal strings,
-- which ClickHouse parses into these types; the hex NTP times stay
-- strings. A key that is missing takes its type's default; a key that is
-- not here fails the insert, so a collector that adds keys (other
-- primitives in its aggregate) needs columns for them.
CREATE TABLE rtel_io_ingest
(
    event_type String,
    peer_ip_src String,
    export_proto_sysid UInt32,
    ip_src String,
    ip_dst String,
    iface_in UInt32,
    flow_id UInt64,
    observation_point_id UInt32,
    flow_end_reason UInt8,
    flow_start_ntp String,
    flow_end_ntp String,
    rdma_coverage_start_nanoseconds UInt64,
    rdma_coverage_end_nanoseconds UInt64,
    nvme_io_state UInt8,
    nvme_io_flags UInt32,
    nvme_host_qpn UInt32,
    nvme_target_qpn UInt32,
    nvme_command_id UInt16,
    nvme_queue_id UInt16,
    nvme_opcode UInt8,
    nvme_fabrics_type UInt8,
    nvme_status UInt16,
    nvme_namespace_id UInt32,
    nvme_starting_lba UInt64,
    nvme_block_count UInt32,
    nvme_io_length UInt64,
    nvme_command_nanoseconds UInt64,
    nvme_response_nanoseconds UInt64,
    nvme_data_first_nanoseconds UInt64,
    nvme_data_last_nanoseconds UInt64,
    nvme_read_request_nanoseconds UInt64,
    nvme_iol_nanoseconds UInt64,       -- signed64, printed as unsigned:
    nvme_dal_nanoseconds UInt64,       -- toInt64() gives it back
    nvme_dpl_nanoseconds UInt64,
    nvme_transfer_nanoseconds UInt64,
    packets UInt64,
    bytes UInt64
)
ENGINE = Null; -- deployed: ENGINE = Kafka(...), see the header

-- rtel_io_ingest -> rtel_io. nvmeIoState is 1..5 in every I/O record and
-- absent (0) from the other templates.
CREATE MATERIALIZED VIEW rtel_io_mv TO rtel_io AS
SELECT
    peer_ip_src AS exporter,
    export_proto_sysid AS observation_domain_id,
    observation_point_id,
    flow_id,
    if(nvme_command_nanoseconds != 18446744073709551615,
       nvme_command_nanoseconds, nvme_response_nanoseconds) AS start_ns,
    toDateTime(intDiv(start_ns, 1000000000)) AS start_time,
    ip_src AS host,
    ip_dst AS target,
    iface_in AS port,
    CAST(nvme_io_state AS Enum8('complete' = 1, 'timeout' = 2, 'orphan' = 3,
                                'evicted' = 4, 'truncated' = 5)) AS state,
    nvme_io_flags AS flags,
    if(nvme_io_state = 3, NULL,
       toUInt8(bitAnd(nvme_io_flags, 2) != 0)) AS incapsule,
    if(nvme_host_qpn = 4294967295, NULL, nvme_host_qpn) AS host_qpn,
    if(nvme_target_qpn = 4294967295, NULL, nvme_target_qpn) AS target_qpn,
    nvme_command_id AS cid,
    if(bitAnd(nvme_io_flags, 32) != 0, nvme_queue_id, NULL) AS qid,
    if(nvme_io_state = 3, NULL, nvme_opcode) AS nvme_opcode,
    if(nvme_io_state = 3 OR bitAnd(nvme_io_flags, 8) = 0, NULL,
       nvme_fabrics_type) AS nvme_fctype,
    nvme_status,
    if(nvme_io_state = 3, NULL, nvme_namespace_id) AS nsid,
    if(nvme_io_state = 3, NULL, nvme_starting_lba) AS slba,
    if(nvme_io_state = 3, NULL, nvme_block_count) AS nlb,
    if(nvme_io_state = 3, NULL, nvme_io_length) AS bytes,
    if(nvme_command_nanoseconds = 18446744073709551615, NULL,
       nvme_command_nanoseconds) AS t_cmd_ns,
    if(nvme_response_nanoseconds = 18446744073709551615, NULL,
       nvme_response_nanoseconds) AS t_rsp_ns,
    if(nvme_data_first_nanoseconds = 18446744073709551615, NULL,
       nvme_data_first_nanoseconds) AS t_data_first_ns,
    if(nvme_data_last_nanoseconds = 18446744073709551615, NULL,
       nvme_data_last_nanoseconds) AS t_data_last_ns,
    if(nvme_read_request_nanoseconds = 18446744073709551615, NULL,
       nvme_read_request_nanoseconds) AS t_rdreq_ns,
    if(nvme_iol_nanoseconds = 9223372036854775808, NULL,
       toInt64(nvme_iol_nanoseconds)) AS iol_ns,
    if(nvme_dal_nanoseconds = 9223372036854775808, NULL,
       toInt64(nvme_dal_nanoseconds)) AS dal_ns,
    if(nvme_dpl_nanoseconds = 9223372036854775808, NULL,
       toInt64(nvme_dpl_nanoseconds)) AS dpl_ns,
    if(nvme_transfer_nanoseconds = 9223372036854775808, NULL,
       toInt64(nvme_transfer_nanoseconds)) AS xfer_ns,
    if(rdma_coverage_start_nanoseconds = 18446744073709551615, NULL,
       rdma_coverage_start_nanoseconds) AS coverage_start_ns,
    if(rdma_coverage_end_nanoseconds = 18446744073709551615, NULL,
       rdma_coverage_end_nanoseconds) AS coverage_end_ns
FROM rtel_io_ingest
WHERE nvme_io_state BETWEEN 1 AND 5;
