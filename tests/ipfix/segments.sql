-- SPDX-License-Identifier: MIT
--
-- tests/ipfix/segments.sql - the segment records of rtel-analyze
-- --segments (rtel_segment_record(3)), computed in ClickHouse from the I/O
-- records of tests/ipfix/clickhouse-tables.sql: the sightings of one
-- NVMe-oF I/O at a compute-side point (the switch port facing the host)
-- and at a storage-side point (the port facing the storage) are joined,
-- and its latency split into compute, network and storage time. At fabric
-- scale the two points are often on different switches, whose agents
-- never see each other's records: the join happens here, over the records
-- of every agent. (README.md, "Fabric scale: IPFIX to ClickHouse".)
--
-- Creates the view rtel_segments; run it after clickhouse-tables.sql in
-- the same database (clickhouse-client --multiquery), then for example
--
--   SELECT * FROM rtel_segments FORMAT JSONEachRow
--
-- (with --output_format_json_quote_64bit_integers=0 the 64-bit numbers
-- come out as JSON numbers; rtel-analyze's JSON writes them as strings of
-- digits). Its columns type .. storage_ns are the members of rtel-analyze's
-- JSON segment records, with their names and values, but op (the
-- command's name, rtel_nvme_cmd_str(3)): nvme_opcode is its number; the
-- others say which records were joined. ClickHouse 18.16 or
-- later: one JOIN per SELECT, equality keys only, no window functions.
--
-- Which records are joined (the library's rule, rtel-metrics(7),
-- "Joining", and lib/rtel_join.c):
--
--   * complete records only (state 'complete');
--   * a compute-side point with a storage-side point, as rtel_points
--     declares them (role 'compute', role 'storage'); two points of one
--     role, and 'fabric' points, are never joined. The library also infers
--     the roles of undeclared points (the larger IOL is the compute side,
--     roles "inferred"); this view joins declared points only, so its
--     roles is always "configured": declare every point (rtel-analyze
--     --compute-side/--storage-side is the same declaration);
--   * the same I/O: equal host, target, target QPN, CID, opcode, Fabrics
--     type, NSID, first LBA and length (the library's join_same());
--   * of the records with one such key at one point, the k-th by response
--     time with the k-th at the other point (occurrence in the view's
--     columns). The library pairs a record with the oldest waiting twin:
--     records of one key never overlap in time (a CID names one
--     outstanding command of its queue), so while every sighting of the
--     key completes at both points, the oldest waiting twin of the k-th is
--     the k-th. The order uses times of one point only, so, as in the
--     library, the clocks of the two points need not be synchronised.
--
-- Where it can differ from the library, and why the test avoids it:
--
--   * the join window. The library lets a complete record wait for its
--     twin for io_join_window (1 s; rtel_settings(3)) of its own point's
--     clock after its response, then gives up (io_join_unmatched). That
--     is a rule about when records arrive, measured on one point's clock
--     against the arrival of a record from another point: it has no
--     equivalent in stored records without comparing the two points'
--     clocks, which the library never does. This view has no window.
--     Records that the library gave up on (a twin more than 1 s later)
--     are joined here, and a sighting missing at one point (not complete
--     there, or before the capture began) shifts the occurrences of its
--     key at that point. With clocks synchronised (PTP) a deployment may
--     drop the pairs further apart than a window, WHERE
--     abs(toInt64(compute_t_rsp_ns) - toInt64(storage_t_rsp_ns)) <
--     1000000000 (this drops, it does not pair again).
--     tests/ipfix/clickhouse.py uses rtel-sim's nvme-read, nvme-write and
--     nvme-two-obs scenarios: every I/O completes at both points within
--     microseconds of simulated time (the whole run is a few ms), so no
--     wait ends and no sighting is missing, and the result equals
--     rtel-analyze --segments record for record. (nvme-two-obs has
--     flushes, whose keys repeat: occurrences up to 3; and its points'
--     clocks are milliseconds apart, which the rule does not see.)
--   * the join table's capacity (max_io_joins): the library's oldest
--     waiting record gives up when the table is full; the scenarios have
--     a few hundred I/Os, the table 16384 entries.
--
-- The figures (rtel-metrics(7), "The segments"), iol1 the IOL at the
-- compute side, iol2 at the storage side:
--   rtt     = iol1 - iol2
--   compute = DPL at the compute side when both points measured a DPL (a
--             fetched write), else 0
--   network = iol1 - iol2, plus (DPL at s - DPL at c) for a fetched write
--   storage = iol1 - compute - network
CREATE VIEW rtel_segments AS
SELECT
    'segment' AS type,
    host,
    target,
    tqpn AS target_qpn,
    cid,
    opcode AS nvme_opcode,
    compute_obs,
    storage_obs,
    'configured' AS roles,
    nsid,
    slba,
    bytes,
    c_iol_ns AS iol1_ns,
    s_iol_ns AS iol2_ns,
    c_iol_ns - s_iol_ns AS rtt_ns,
    if(isNotNull(c_dpl_ns) AND isNotNull(s_dpl_ns),
       assumeNotNull(c_dpl_ns), toInt64(0)) AS compute_ns,
    if(isNotNull(c_dpl_ns) AND isNotNull(s_dpl_ns),
       (c_iol_ns - s_iol_ns)
         + (assumeNotNull(s_dpl_ns) - assumeNotNull(c_dpl_ns)),
       c_iol_ns - s_iol_ns) AS network_ns,
    iol1_ns - compute_ns - network_ns AS storage_ns,
    -- which records: the points, the flowIds, the times at each point
    fctype,
    occurrence,
    compute_exporter,
    compute_domain,
    compute_point,
    c_flow_id AS compute_flow_id,
    c_t_cmd_ns AS compute_t_cmd_ns,
    c_t_rsp_ns AS compute_t_rsp_ns,
    storage_exporter,
    storage_domain,
    storage_point,
    s_flow_id AS storage_flow_id,
    s_t_cmd_ns AS storage_t_cmd_ns,
    s_t_rsp_ns AS storage_t_rsp_ns
FROM
(
    -- the compute-side sightings, numbered per key and point
    SELECT
        host, target, tqpn, cid, opcode, fctype, nsid, slba, bytes,
        compute_exporter, compute_domain, compute_point, compute_obs,
        occurrence,
        tupleElement(r, 1) AS c_t_rsp_ns,
        tupleElement(r, 2) AS c_t_cmd_ns,
        tupleElement(r, 3) AS c_iol_ns,
        tupleElement(r, 4) AS c_dpl_ns,
        tupleElement(r, 5) AS c_flow_id
    FROM
    (
        SELECT
            host, target, tqpn, cid, opcode, fctype, nsid, slba, bytes,
            exporter AS compute_exporter,
            observation_domain_id AS compute_domain,
            observation_point_id AS compute_point,
            name AS compute_obs,
            arraySort(groupArray((t_rsp, t_cmd, iol, dpl_ns,
                                  flow_id))) AS rs
        FROM
        (
            SELECT
                exporter, observation_domain_id, observation_point_id,
                host, target, ifNull(target_qpn, 4294967295) AS tqpn, cid,
                assumeNotNull(nvme_opcode) AS opcode,
                ifNull(nvme_fctype, 0) AS fctype, assumeNotNull(nsid) AS nsid,
                assumeNotNull(slba) AS slba, assumeNotNull(bytes) AS bytes,
                flow_id,
                assumeNotNull(t_rsp_ns) AS t_rsp,
                assumeNotNull(t_cmd_ns) AS t_cmd,
                assumeNotNull(iol_ns) AS iol, dpl_ns
            FROM rtel_io
            WHERE state = 'complete'
        )
        ALL INNER JOIN
        (
            SELECT exporter, observation_domain_id, observation_point_id,
                   name
            FROM rtel_points FINAL
            WHERE role = 'compute'
        )
        USING (exporter, observation_domain_id, observation_point_id)
        GROUP BY host, target, tqpn, cid, opcode, fctype, nsid, slba, bytes,
                 compute_exporter, compute_domain, compute_point,
                 compute_obs
    )
    ARRAY JOIN rs AS r, arrayEnumerate(rs) AS occurrence
)
ALL INNER JOIN
(
    -- the storage-side sightings, numbered the same way
    SELECT
        host, target, tqpn, cid, opcode, fctype, nsid, slba, bytes,
        storage_exporter, storage_domain, storage_point, storage_obs,
        occurrence,
        tupleElement(r, 1) AS s_t_rsp_ns,
        tupleElement(r, 2) AS s_t_cmd_ns,
        tupleElement(r, 3) AS s_iol_ns,
        tupleElement(r, 4) AS s_dpl_ns,
        tupleElement(r, 5) AS s_flow_id
    FROM
    (
        SELECT
            host, target, tqpn, cid, opcode, fctype, nsid, slba, bytes,
            exporter AS storage_exporter,
            observation_domain_id AS storage_domain,
            observation_point_id AS storage_point,
            name AS storage_obs,
            arraySort(groupArray((t_rsp, t_cmd, iol, dpl_ns,
                                  flow_id))) AS rs
        FROM
        (
            SELECT
                exporter, observation_domain_id, observation_point_id,
                host, target, ifNull(target_qpn, 4294967295) AS tqpn, cid,
                assumeNotNull(nvme_opcode) AS opcode,
                ifNull(nvme_fctype, 0) AS fctype, assumeNotNull(nsid) AS nsid,
                assumeNotNull(slba) AS slba, assumeNotNull(bytes) AS bytes,
                flow_id,
                assumeNotNull(t_rsp_ns) AS t_rsp,
                assumeNotNull(t_cmd_ns) AS t_cmd,
                assumeNotNull(iol_ns) AS iol, dpl_ns
            FROM rtel_io
            WHERE state = 'complete'
        )
        ALL INNER JOIN
        (
            SELECT exporter, observation_domain_id, observation_point_id,
                   name
            FROM rtel_points FINAL
            WHERE role = 'storage'
        )
        USING (exporter, observation_domain_id, observation_point_id)
        GROUP BY host, target, tqpn, cid, opcode, fctype, nsid, slba, bytes,
                 storage_exporter, storage_domain, storage_point,
                 storage_obs
    )
    ARRAY JOIN rs AS r, arrayEnumerate(rs) AS occurrence
)
USING (host, target, tqpn, cid, opcode, fctype, nsid, slba, bytes,
       occurrence);
