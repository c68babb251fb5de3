/*
 * Cancellation tokens (unstable API): the owned token is a counted reference to the session's
 * token (session.h, zm_cancel_t), which the gets given it link themselves into while they wait.
 */
#include "api/api.h"

#if Z_FEATURE_QUERY && ZM_UNSTABLE_API

z_result_t z_cancellation_token_new(z_owned_cancellation_token_t *cancellation_token)
{
    if (cancellation_token == NULL) {
        return Z_EINVAL;
    }
    return zm_cancel_new(&cancellation_token->_rc.ptr);
}

void z_internal_cancellation_token_null(z_owned_cancellation_token_t *obj)
{
    if (obj != NULL) {
        obj->_rc.ptr = NULL;
    }
}

bool z_internal_cancellation_token_check(const z_owned_cancellation_token_t *obj)
{
    return obj != NULL && obj->_rc.ptr != NULL;
}

ZM_API_DEFINE_TAKE(cancellation_token)

void z_cancellation_token_drop(z_moved_cancellation_token_t *obj)
{
    if (obj != NULL) {
        zm_cancel_unref(obj->_this._rc.ptr);
        obj->_this._rc.ptr = NULL;
    }
}

z_result_t z_cancellation_token_clone(z_owned_cancellation_token_t *dst, const z_loaned_cancellation_token_t *src)
{
    if (dst == NULL || src == NULL || src->ptr == NULL) {
        return Z_EINVAL;
    }
    dst->_rc.ptr = zm_cancel_ref(src->ptr);
    return Z_OK;
}

bool z_cancellation_token_is_cancelled(const z_loaned_cancellation_token_t *cancellation_token)
{
    return cancellation_token != NULL && cancellation_token->ptr != NULL &&
           zm_cancel_is_cancelled(cancellation_token->ptr);
}

z_result_t z_cancellation_token_cancel(z_loaned_cancellation_token_t *cancellation_token)
{
    if (cancellation_token == NULL || cancellation_token->ptr == NULL) {
        return Z_EINVAL;
    }
    zm_cancel_cancel(cancellation_token->ptr);
    return Z_OK;
}

#endif
