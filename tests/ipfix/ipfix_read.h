/* SPDX-License-Identifier: MIT */
/*
 * ipfix_read: an independent, strict reader of IPFIX Messages for the tests
 * (RFC 7011 message format, RFC 7012 data types, RFC 5610 Information
 * Element type records). Written from the RFCs, not from the library's
 * encoder, so that it can judge the encoder's output; it never calls the
 * library.
 *
 * A reader state (ipr_new) keeps, across messages, the Templates and
 * Options Templates of each Observation Domain and, per domain, the
 * Sequence Number the next message must carry. ipr_read_msg() reads one
 * whole message and either accepts all of it (the templates it defines and
 * its records enter the state) or rejects it with a reason (the state is
 * left as it was). What is checked is written at ipr_read_msg().
 *
 * Memory: ipr_new() allocates everything; ipr_read_msg() allocates nothing.
 * The arrays of an ipr_msg live in the state and the field pointers point
 * into the caller's buffer: both are valid until the next ipr_read_msg(),
 * ipr_reset() or ipr_free() of that state, and as long as the buffer is.
 * Any input bytes are safe (no read outside [buf, buf + len)).
 */
#ifndef IPFIX_READ_H
#define IPFIX_READ_H

#include <stddef.h>
#include <stdint.h>

/* Capacities of a reader state (not protocol limits: beyond them a message
 * is rejected with IPR_E_LIMIT). */
#define IPR_MAX_TEMPLATES 64 /* (domain, template id) pairs */
#define IPR_MAX_FIELDS 128   /* fields of one template */
#define IPR_MAX_DOMAINS 64   /* Observation Domains with a sequence count */

/* Flags of ipr_new(). By default the first message of every Observation
 * Domain must carry Sequence Number 0 (the reader has seen the stream from
 * its start). */
#define IPR_F_ANY_FIRST_SEQ 0x1u /* first message of a domain: any number */
#define IPR_F_NO_SEQ 0x2u        /* no Sequence Number check at all */

/* Why a message was rejected (ipr_last_error()); ipr_error_name() spells
 * them. */
typedef enum {
  IPR_OK = 0,
  IPR_E_ARG,              /* NULL state, output or buffer */
  IPR_E_SHORT,            /* fewer than the 16 bytes of a Message Header */
  IPR_E_VERSION,          /* Version Number is not 10 */
  IPR_E_LENGTH,           /* header Length is not the buffer's length */
  IPR_E_SET_HEADER,       /* 1..3 bytes left after the last Set */
  IPR_E_SET_LENGTH,       /* Set Length < 4 */
  IPR_E_SET_OVERRUN,      /* Set Length goes past the end of the message */
  IPR_E_SET_ID,           /* Set ID 0, 1 or 4..255 */
  IPR_E_EMPTY_SET,        /* a Set without a record (zeros at most) */
  IPR_E_TEMPLATE_ID,      /* Template ID < 256 */
  IPR_E_FIELD_COUNT,      /* Field Count 0 (a withdrawal: not accepted) */
  IPR_E_SCOPE_COUNT,      /* Scope Field Count 0 or > Field Count */
  IPR_E_TEMPLATE_OVERRUN, /* template record past the end of its Set */
  IPR_E_PEN_TRUNCATED,    /* enterprise bit set, Set ends inside the PEN */
  IPR_E_PEN_ZERO,         /* enterprise bit set with Enterprise Number 0 */
  IPR_E_IE_ID,            /* IANA Information Element 0 (reserved) */
  IPR_E_FIELD_LENGTH,     /* Field Length 0, or not one the type allows */
  IPR_E_RECORD_SIZE,      /* smallest record of a template cannot fit */
  IPR_E_UNKNOWN_TEMPLATE, /* Data Set of a template not (yet) defined */
  IPR_E_RECORD_OVERRUN,   /* data record past the end of its Set */
  IPR_E_PADDING,          /* the bytes after the last record are not zero */
  IPR_E_SEQUENCE,         /* Sequence Number is not the expected one */
  IPR_E_LIMIT             /* a capacity of the reader (above) */
} ipr_error;

/* One field specifier of a template (RFC 7011 3.2). */
typedef struct {
  uint16_t id;   /* Information Element id, enterprise bit cleared */
  uint16_t tlen; /* Field Length; 65535: variable length */
  uint32_t pen;  /* Enterprise Number; 0: an IANA element */
} ipr_tfield;

/* A template as the state keeps it. */
typedef struct {
  uint32_t domain;
  uint16_t tid;
  uint16_t nfields;
  uint16_t scope_count; /* 0: a Template; >= 1: an Options Template */
  uint16_t min_len;     /* smallest data record (1 per variable field) */
  ipr_tfield fields[IPR_MAX_FIELDS];
} ipr_template;

/* One field of a data record. */
typedef struct {
  uint16_t id;         /* as in the template */
  uint16_t tlen;       /* as in the template (65535: variable length) */
  uint32_t pen;        /* as in the template */
  const uint8_t *data; /* the content, in the caller's buffer */
  uint16_t len;        /* content length (without a length prefix) */
  uint8_t prefix;      /* length prefix: 0 (fixed), 1 or 3 bytes */
  uint8_t reserved;
} ipr_field;

/* One data record (options data records included). */
typedef struct {
  uint32_t domain;
  uint16_t tid;
  uint16_t scope_count; /* of its template: > 0 for options data */
  uint16_t nfields;
  uint16_t size;           /* bytes of the record */
  size_t offset;           /* of the record in the message */
  size_t set;              /* index in ipr_msg.sets */
  const ipr_field *fields; /* nfields, in template order */
} ipr_rec;

/* One Set of a message, in message order. */
typedef struct {
  uint16_t id;      /* 2, 3 or a Template ID */
  uint16_t length;  /* Set Length */
  uint16_t padding; /* bytes after its last record */
  uint16_t reserved;
  size_t offset; /* of the Set Header in the message */
  size_t first;  /* first index in recs (data) or tdefs (2 and 3) */
  size_t count;  /* records in it */
} ipr_set;

/* One (options) template record of a message. */
typedef struct {
  uint16_t tid;
  uint16_t nfields;
  uint16_t scope_count; /* 0 in a Template Set */
  uint16_t reserved;
  size_t offset; /* of the record in the message */
  size_t set;    /* index in ipr_msg.sets */
} ipr_tdef;

/* The Message Header (RFC 7011 3.1). */
typedef struct {
  uint16_t version;
  uint16_t length;
  uint32_t export_time; /* seconds since the Unix epoch */
  uint32_t seq;
  uint32_t domain; /* Observation Domain ID */
} ipr_hdr;

typedef struct {
  ipr_hdr hdr;
  size_t nsets;
  const ipr_set *sets;
  size_t ntdefs;
  const ipr_tdef *tdefs;
  size_t nrecs; /* data records, options data records included */
  const ipr_rec *recs;
} ipr_msg;

typedef struct ipr_state ipr_state;

/* A reader state with IPR_F_* flags; NULL when out of memory. */
ipr_state *ipr_new(unsigned flags);
void ipr_free(ipr_state *st);
/* Forget every template and domain (a new Transport Session). */
void ipr_reset(ipr_state *st);

/*
 * Read the one message in buf[0..len). Returns 0 and fills *out, or returns
 * -1, writes why into err (NUL-terminated, if err and errlen > 0; it starts
 * with the byte offset concerned) and leaves the state as it was; the
 * ipr_error is then ipr_last_error(st). On failure *out holds the header
 * if it was read, and no sets or records.
 *
 * Checked (RFC 7011 sections in brackets):
 *  - header [3.1]: 16 bytes, Version 10, Length == len;
 *  - the sets cover the message exactly [3.3.1]: Set Length >= 4 and within
 *    the message, Set ID 2, 3 or >= 256 [3.3.2], at least one record;
 *  - template records [3.4.1, 3.4.2]: Template ID >= 256, Field Count >= 1,
 *    Scope Field Count 1..Field Count (Set 3), each field specifier whole
 *    and its Enterprise Number present when the enterprise bit is set (and
 *    not 0), no IANA element 0, no Field Length 0, a smallest record that
 *    fits in a message, and for the IANA elements ipr_ie_type() knows, a
 *    length their type allows (ipr_type_len_ok());
 *  - data sets [3.4.3]: the template is known (defined in an earlier
 *    message or earlier in this one, same domain), every record lies whole
 *    in the Set, variable-length fields [7] with a 1-byte length or 255
 *    and a 2-byte length;
 *  - padding [3.3.1]: what follows the last record is shorter than the
 *    smallest record of the Set and all zero;
 *  - Sequence Number [3.1]: the number of data records (options data
 *    included) of the earlier messages of this domain, modulo 2^32 (see
 *    IPR_F_*).
 * A template redefined (same domain and id) replaces the old one.
 */
int ipr_read_msg(ipr_state *st, const uint8_t *buf, size_t len, ipr_msg *out,
                 char *err, size_t errlen);

ipr_error ipr_last_error(const ipr_state *st);
const char *ipr_error_name(ipr_error e); /* "IPR_E_VERSION", ... */

/* The Message Header of buf without checking anything else: 0, or -1 if
 * len < 16. */
int ipr_peek_hdr(const uint8_t *buf, size_t len, ipr_hdr *hdr);

/* Message header accessors. */
uint32_t ipr_msg_export_time(const ipr_msg *m);
uint32_t ipr_msg_seq(const ipr_msg *m);
uint32_t ipr_msg_domain(const ipr_msg *m);

/* The template the state holds for (domain, tid), or NULL. */
const ipr_template *ipr_template_get(const ipr_state *st, uint32_t domain,
                                     uint16_t tid);
/* Sequence state of a domain: 0 and the Sequence Number its next message
 * must carry and the data records read so far, or -1 if no message of the
 * domain was read. Either pointer may be NULL. */
int ipr_domain_seq(const ipr_state *st, uint32_t domain, uint32_t *next_seq,
                   uint64_t *nrecords);

/* The first field (pen, id) of a record (pen 0: IANA), or NULL. */
const ipr_field *ipr_find_field(const ipr_rec *r, uint32_t pen, uint16_t id);
/* The same, as content pointer and length (*len may be NULL). */
const uint8_t *ipr_find(const ipr_rec *r, uint32_t pen, uint16_t id,
                        size_t *len);

/*
 * Field content readers (RFC 7011 6.1, 6.2). Each returns 0, or -1 (and
 * leaves *v alone) if len is not one its type allows.
 */
/* unsigned8..64, big-endian, reduced-size encoding allowed: len 1..8 */
int ipr_get_uint(const uint8_t *p, size_t len, uint64_t *v);
/* signed8..64, reduced size sign-extended: len 1..8 */
int ipr_get_int(const uint8_t *p, size_t len, int64_t *v);
/* ipv4Address (len 4), host order (10.0.0.1 is 0x0a000001) */
int ipr_get_ipv4(const uint8_t *p, size_t len, uint32_t *v);
/* ipv6Address (len 16), the 16 bytes in network order */
int ipr_get_ipv6(const uint8_t *p, size_t len, uint8_t v[16]);
/* dateTimeSeconds (len 4) */
int ipr_get_seconds(const uint8_t *p, size_t len, uint32_t *v);
/* dateTimeMilliseconds (len 8): milliseconds since the Unix epoch */
int ipr_get_ms(const uint8_t *p, size_t len, uint64_t *v);
/* dateTimeNanoseconds (len 8, NTP format) as ipr_ntp_to_unix_ns() */
int ipr_get_ntp_ns(const uint8_t *p, size_t len, int64_t *v);

/* A 64-bit NTP timestamp (seconds since 1900-01-01 in the high 32 bits,
 * the fraction of a second in 1/2^32 s in the low 32; era 0, 1900 to 2036)
 * as nanoseconds since the Unix epoch, the fraction rounded to the nearest
 * nanosecond (halves up; 0xFFFFFFFF rounds into the next second). */
int64_t ipr_ntp_to_unix_ns(uint64_t ntp);

/* 1 if p[0..len) is well-formed UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), else 0. */
int ipr_utf8_valid(const uint8_t *p, size_t len);

/* Abstract data types, numbered as the informationElementDataType values
 * of RFC 5610 3.1 (the IANA "IPFIX Information Element Data Types"). */
enum {
  IPR_T_OCTETARRAY = 0,
  IPR_T_UNSIGNED8 = 1,
  IPR_T_UNSIGNED16 = 2,
  IPR_T_UNSIGNED32 = 3,
  IPR_T_UNSIGNED64 = 4,
  IPR_T_SIGNED8 = 5,
  IPR_T_SIGNED16 = 6,
  IPR_T_SIGNED32 = 7,
  IPR_T_SIGNED64 = 8,
  IPR_T_FLOAT32 = 9,
  IPR_T_FLOAT64 = 10,
  IPR_T_BOOLEAN = 11,
  IPR_T_MACADDRESS = 12,
  IPR_T_STRING = 13,
  IPR_T_DATETIMESECONDS = 14,
  IPR_T_DATETIMEMILLISECONDS = 15,
  IPR_T_DATETIMEMICROSECONDS = 16,
  IPR_T_DATETIMENANOSECONDS = 17,
  IPR_T_IPV4ADDRESS = 18,
  IPR_T_IPV6ADDRESS = 19,
  IPR_T_BASICLIST = 20,
  IPR_T_SUBTEMPLATELIST = 21,
  IPR_T_SUBTEMPLATEMULTILIST = 22
};

/* informationElementSemantics values (RFC 5610 3.6). */
enum {
  IPR_S_DEFAULT = 0,
  IPR_S_QUANTITY = 1,
  IPR_S_TOTALCOUNTER = 2,
  IPR_S_DELTACOUNTER = 3,
  IPR_S_IDENTIFIER = 4,
  IPR_S_FLAGS = 5,
  IPR_S_LIST = 6
};

/* The data type of an IANA element this reader knows (a small table: the
 * common flow keys, counters, timestamps and the RFC 5610 elements), or -1.
 */
int ipr_ie_type(uint16_t id);
/* 1 if a template may give an element of data type t the Field Length tlen
 * (65535: variable): reduced size for the integers, float32 or float64 for
 * float64, variable only for octetArray, string and the lists; else 0. An
 * unknown t (-1) allows any length but 0. */
int ipr_type_len_ok(int t, uint16_t tlen);

/* RFC 5610 Information Element ids. */
#define IPR_IE_INFORMATIONELEMENTID 303
#define IPR_IE_DATATYPE 339
#define IPR_IE_DESCRIPTION 340
#define IPR_IE_NAME 341
#define IPR_IE_RANGEBEGIN 342
#define IPR_IE_RANGEEND 343
#define IPR_IE_SEMANTICS 344
#define IPR_IE_UNITS 345
#define IPR_IE_PRIVATEENTERPRISENUMBER 346

/* ipr_ietype.have bits: which non-scope fields the record carries. */
#define IPR_HAVE_TYPE 0x01u
#define IPR_HAVE_SEMANTICS 0x02u
#define IPR_HAVE_UNITS 0x04u
#define IPR_HAVE_NAME 0x08u
#define IPR_HAVE_DESCRIPTION 0x10u
#define IPR_HAVE_RANGEBEGIN 0x20u
#define IPR_HAVE_RANGEEND 0x40u

/* An Information Element type record (RFC 5610 3.9). */
typedef struct {
  uint32_t pen; /* privateEnterpriseNumber */
  uint16_t id;  /* informationElementId */
  uint8_t data_type;
  uint8_t semantics;
  uint16_t units;
  uint16_t reserved;
  unsigned have; /* IPR_HAVE_* */
  uint64_t range_begin;
  uint64_t range_end;
  const uint8_t *name; /* UTF-8, not NUL-terminated, in the buffer */
  size_t name_len;
  const uint8_t *description; /* NULL if absent */
  size_t description_len;
} ipr_ietype;

/*
 * Recognise an Information Element type record: an options data record
 * whose template has exactly the two scope fields informationElementId (303)
 * and privateEnterpriseNumber (346), in either order, and non-scope fields
 * only among 339..345 (all IANA). Returns 1 and fills *t; 0 if r is not
 * such a record; -1 (with err) if it is one but is malformed: a non-scope
 * element twice, a length its type does not allow, no
 * informationElementDataType or informationElementName (the MUSTs of
 * RFC 5610 3.9), an empty or invalid UTF-8 name, an invalid UTF-8
 * description, or an informationElementId above 32767.
 */
int ipr_ietype_get(const ipr_rec *r, ipr_ietype *t, char *err, size_t errlen);

#endif
