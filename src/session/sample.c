/*
 * What the features share to judge what peers send: the fate of a message whose key cannot be
 * resolved.
 */
#include "session/internal.h"

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

