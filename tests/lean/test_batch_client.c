/*
 * The batch reader of a client that subscribes but neither queries nor answers queries (built
 * with that client's options by tests/CMakeLists.txt): PUSH and DECLARE are decoded and checked
 * as ever; a REQUEST, RESPONSE, RESPONSE_FINAL, INTEREST or network OAM, which Rust never sends
 * such a client, ends the reading of its batch instead, and so does a transport OAM.
 */
#include <string.h>

#include "check.h"
#include "proto/codec.h"

_Static_assert(ZM_DECODE_PUSH && !ZM_DECODE_REQUEST && !ZM_DECODE_RESPONSE && !ZM_DECODE_INTEREST,
               "this test needs a client that subscribes and has no queries");

/* Walks a batch: the ids of the network messages it yields into ids, their count into *n. */
static z_result_t walk(const uint8_t *b, size_t len, uint8_t *ids, size_t *n)
{
    zm_batch_iter_t it;
    zm_batch_iter_init(&it, b, len, ZM_SN_MASK_DEFAULT);
    *n = 0;
    for (;;) {
        zm_transport_msg_t tm;
        bool got;
        ZM_TRY(zm_batch_next(&it, &tm, &got));
        if (!got) {
            return Z_OK;
        }
        for (;;) {
            zm_network_msg_t nm;
            ZM_TRY(zm_batch_next_network(&it, &nm, &got));
            if (!got) {
                break;
            }
            ids[(*n)++] = nm.id;
        }
    }
}

#define DECL_DEMO 0x1e, 0x20, 0x01, 0x00, 0x04, 'd', 'e', 'm', 'o'
#define PUSH_DEMO 0x3d, 0x00, 0x04, 'd', 'e', 'm', 'o', 0x01, 0x01, 'x'
#define INTEREST_FINAL 0x19, 0x05

#define EXPECT(want, ...)                                                                    \
    do {                                                                                     \
        static const uint8_t b_[] = {__VA_ARGS__};                                           \
        static const uint8_t want_[] = want;                                                 \
        uint8_t ids_[8];                                                                     \
        size_t n_ = 0;                                                                       \
        CHECK_EQ_INT(walk(b_, sizeof(b_), ids_, &n_), Z_OK);                                 \
        CHECK_EQ_MEM(ids_, n_, want_, sizeof(want_));                                        \
    } while (0)
#define IDS(...) {__VA_ARGS__}

int main(void)
{
    /* what the client takes is read, in every FRAME of the batch */
    EXPECT(IDS(0x1e, 0x1d, 0x1d), 0x25, 0x01, DECL_DEMO, PUSH_DEMO, 0x25, 0x02, PUSH_DEMO);
    /* a query or a reply ends the batch, whatever follows it, KEEP_ALIVE and CLOSE included */
    EXPECT(IDS(0x1e, 0x1d), 0x25, 0x01, DECL_DEMO, PUSH_DEMO, 0x1c, 0xff, 0xff, PUSH_DEMO);
    EXPECT(IDS(0x1d), 0x25, 0x01, PUSH_DEMO, 0x1b, 0x01, 0x00, 0x04, 0x03, 0x00);
    EXPECT(IDS(0x1d), 0x25, 0x01, PUSH_DEMO, 0x1a, 0x01, 0x25, 0x02, PUSH_DEMO);
    EXPECT(IDS(0x1e), 0x25, 0x01, DECL_DEMO, 0x1a);
    EXPECT(IDS(0x1d), 0x25, 0x01, PUSH_DEMO, INTEREST_FINAL, PUSH_DEMO);
    EXPECT(IDS(0x1d), 0x25, 0x01, PUSH_DEMO, 0x1f, 0x01, PUSH_DEMO);
    /* and so does a transport OAM, which Rust does not send on a unicast link */
    EXPECT(IDS(0x1d), 0x25, 0x01, PUSH_DEMO, 0x00, 0xff, 0x25, 0x02, PUSH_DEMO);

    /* the decoder itself refuses them, as messages it does not know */
    static const uint8_t final_[] = {0x1a, 0x01};
    zm_reader_t r;
    zm_network_msg_t m;
    zm_reader_init(&r, final_, sizeof(final_));
    CHECK_EQ_INT(zm_network_decode(&r, &m), ZM_E_MSG_UNKNOWN);
    CHECK_EQ_INT(zm_reader_offset(&r), 0);

    /* what it reads is checked as ever: a PUSH cut short, a DECLARE of an unknown kind */
    static const uint8_t cut[] = {0x25, 0x01, 0x3d, 0x00, 0x04, 'd', 'e', 'm', 'o', 0x01, 0x05, 'x'};
    static const uint8_t bad_decl[] = {0x25, 0x01, 0x1e, 0x0f, 0x01};
    uint8_t ids[8];
    size_t n;
    CHECK_EQ_INT(walk(cut, sizeof(cut), ids, &n), ZM_E_TRUNCATED);
    CHECK_EQ_INT(walk(bad_decl, sizeof(bad_decl), ids, &n), ZM_E_DECL_UNKNOWN);
    return CHECK_DONE();
}
