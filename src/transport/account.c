/*
 * The memory account of a session (account.h): one figure per kind and one for all, each taken
 * by compare-and-swap within its bound, so that readers of several peers charge at once without
 * a lock and no figure passes its bound even for a moment. The figures order nothing else (what
 * they count is made and freed under its own locks): their steps are relaxed.
 */
#include "transport/account.h"

#include "util/common.h"
#include "zmote/opt.h"

static const size_t kind_max[ZM_HELD_KINDS] = {ZM_SESSION_DECL_BYTES_MAX, ZM_FRAG_BYTES_MAX, ZM_GETS_KEPT_BYTES};

/* Adds n to *v unless it would pass max (every figure stays within its bound: no overflow). */
static bool take(ZM_ATOMIC(size_t) *v, size_t n, size_t max)
{
    size_t held = zm_atomic_load_relaxed(v);
    do {
        if (n > max - held) {
            return false;
        }
    } while (!zm_atomic_cas_relaxed(v, &held, held + n));
    return true;
}

bool zm_account_charge(zm_account_t *a, unsigned kind, size_t n)
{
    if (!take(&a->held[kind], n, kind_max[kind])) {
        return false;
    }
    if (!take(&a->total, n, ZM_SESSION_BYTES_MAX)) {
        (void)zm_atomic_sub_relaxed(&a->held[kind], n);
        return false;
    }
    return true;
}

void zm_account_refund(zm_account_t *a, unsigned kind, size_t n)
{
    ZM_ASSERT(zm_atomic_load_relaxed(&a->held[kind]) >= n);
    (void)zm_atomic_sub_relaxed(&a->held[kind], n);
    (void)zm_atomic_sub_relaxed(&a->total, n);
}

size_t zm_account_held(zm_account_t *a, unsigned kind)
{
    return zm_atomic_load(kind < ZM_HELD_KINDS ? &a->held[kind] : &a->total);
}
