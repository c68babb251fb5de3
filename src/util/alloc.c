/* The allocation hooks; the default is the port's heap (zm_port_malloc / zm_port_free). */
#include "util/alloc.h"

#include <string.h>

void *zm_port_malloc(size_t size);
void zm_port_free(void *ptr);

static void *port_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return zm_port_malloc(size);
}

static void port_free(void *ctx, void *ptr)
{
    (void)ctx;
    zm_port_free(ptr);
}

static zm_allocator_t current = {port_alloc, port_free, NULL};

void *zm_alloc(size_t size) { return size == 0 ? NULL : current.alloc(current.ctx, size); }

void *zm_calloc(size_t size)
{
    void *p = zm_alloc(size);
    if (p != NULL) {
        memset(p, 0, size);
    }
    return p;
}

void zm_free(void *ptr)
{
    if (ptr != NULL) {
        current.free(current.ctx, ptr);
    }
}

void zm_allocator_set(const zm_allocator_t *a)
{
    static const zm_allocator_t port = {port_alloc, port_free, NULL};
    current = a != NULL ? *a : port;
}
