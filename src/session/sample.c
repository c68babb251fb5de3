/*
 * What the features share to build samples and to judge what peers send: a local sample of a
 * put's arguments, and the fate of a message whose key cannot be resolved.
 */
#include <string.h>

#include "session/internal.h"

#if (Z_FEATURE_PUBLICATION && Z_FEATURE_SUBSCRIPTION && Z_FEATURE_LOCAL_SUBSCRIBER) || \
    (Z_FEATURE_QUERYABLE && Z_FEATURE_LOCAL_QUERYABLE)
void zm_sample_from_args(zm_sample_t *smp, const zm_put_args_t *a)
{
    memset(smp, 0, sizeof(*smp));
    smp->key = a->key;
    smp->key_len = a->key_len;
    smp->kind = a->kind;
    const zm_put_t *b = &a->body;
    if (a->kind == ZM_SAMPLE_PUT) {
        smp->payload = b->payload;
        if (b->has_encoding) {
            smp->encoding = b->encoding;
        }
    }
    if (b->has_timestamp) {
        smp->has_timestamp = true;
        smp->timestamp = b->timestamp;
    }
    if (b->exts & ZM_PUT_EXT_ATTACHMENT) {
        smp->has_attachment = true;
        smp->attachment = b->attachment;
    }
    if (b->exts & ZM_PUT_EXT_SOURCE) {
        smp->has_source = true;
        smp->source = b->source;
    }
    smp->priority = a->priority;
    smp->block = a->block;
    smp->express = a->express;
    smp->reliable = a->reliable;
}
#endif

/*
 * A message whose key cannot be resolved. An unknown id may be a race (an undeclaration on the
 * Control channel overtaking data on another priority): the message is dropped. A key that is
 * not a key expression, or is longer than ZM_KEYEXPR_MAX, comes from a broken or hostile peer:
 * its link goes, before anything reaches the application.
 */
#if ZM_REMOTE_DECLS
void zm_bad_key(zm_peer_t *p, z_result_t rc)
{
    if (rc == ZM_E_DECL_UNKNOWN) {
        ZM_LOG_D("a message names an undeclared key expression id: dropped");
        return;
    }
    zm_peer_kill(p, ZM_CLOSE_INVALID, "a message carries an invalid key expression");
}
#endif

