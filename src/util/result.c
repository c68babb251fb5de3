/* Messages for result codes, generated from the one list in zmote/result.h. */
#include "util/common.h"

const char *zm_strerror(z_result_t r)
{
    switch (r) {
#define ZM_RESULT_CASE(name, value, msg) \
    case name:                           \
        return msg;
        ZM_RESULT_LIST(ZM_RESULT_CASE)
#undef ZM_RESULT_CASE
    default:
        return "unknown error";
    }
}

#if ZM_ASSERT_ENABLED
/* No stdio in the portable core: a failed invariant stops here, where a debugger finds it.
 * Weak, so that a port with a console (port/posix) can say what failed before it stops. */
__attribute__((weak)) void zm_assert_fail(const char *expr, const char *file, int line)
{
    ZM_UNUSED(expr);
    ZM_UNUSED(file);
    ZM_UNUSED(line);
    __builtin_trap();
}
#endif
