/* cxx.cpp - the global operator new, new[], delete and delete[] of the process, in every
 * standard form: plain, nothrow, sized (C++14), aligned (C++17), aligned and nothrow,
 * sized and aligned. Every C++ allocation is tracked, the standard library's included;
 * the site is the caller's return address, turned into file:line at report time
 * (symbolize.c). The work is done in C (cxx_blocks.c); this file owns only what needs
 * the C++ ABI: the new-handler loop, throwing std::bad_alloc, and nothrow forms that
 * turn a throwing new-handler into a null pointer.
 *
 * No C++ runtime dependency. libmemtrack serves C and C++ programs alike, and a C program
 * must not need libstdc++ to link or start. So every symbol of the C++ runtime this file
 * uses (exception allocation and throw, std::bad_alloc's type information, the catch
 * entry points, the personality routine, std::get_new_handler) is a weak reference:
 * in a C++ program the runtime is loaded and they resolve to it; in a C program they stay
 * null and nothing here runs. `make` checks that no strong reference slipped in.
 * The file is compiled without RTTI and without thread-safe statics for the same reason.
 */
#include <new>

#include "api/cxx_glue.h"

#define MT_CXX_EXPORT __attribute__((visibility("default")))
#define MT_CALLER __builtin_return_address(0)
#define MT_FRAME __builtin_frame_address(0)
/* The stack is taken in the operator itself, while its frame is there: the call that
 * follows may be a jump that reuses it. A delete takes one too: it names the release. */
#define MT_STACK mt_cxx_stack(MT_FRAME, MT_CALLER)
#define MT_DELETE_STACK(ptr) ((ptr) != nullptr ? MT_STACK : 0u) /* delete of null: no walk */

/* The C++ runtime, weakly (see above). The mangled names are those of the Itanium C++
 * ABI, shared by libstdc++ and libc++abi. */
__asm__(".weak __cxa_allocate_exception\n"
        ".weak __cxa_free_exception\n"
        ".weak __cxa_throw\n"
        ".weak __cxa_begin_catch\n"
        ".weak __cxa_end_catch\n"
        ".weak __gxx_personality_v0\n"
        ".weak _ZTISt9bad_alloc\n"       /* typeinfo for std::bad_alloc */
        ".weak _ZTVSt9bad_alloc\n"       /* vtable for std::bad_alloc */
        ".weak _ZNSt9bad_allocD1Ev\n"    /* std::bad_alloc::~bad_alloc() */
        ".weak _ZSt15get_new_handlerv\n" /* std::get_new_handler() */
        ".weak _ZSt9terminatev\n");      /* std::terminate(), which clang calls */

namespace std
{
new_handler get_new_handler() noexcept __attribute__((weak));
}

namespace
{

/* True when a C++ runtime is loaded and bound: exceptions can be thrown and caught. */
bool runtime_present()
{
    return &std::get_new_handler != nullptr;
}

[[noreturn]] void throw_bad_alloc(std::size_t size)
{
    if (!runtime_present())
        mt_cxx_no_runtime(size);
    throw std::bad_alloc();
}

/* [new.delete.single]: try to allocate; on failure call the new-handler, which makes
 * memory available, throws or ends the program; with no handler, throw std::bad_alloc. */
void *allocate(std::size_t size, std::size_t align, bool array, void *pc, uint32_t stack)
{
    for (;;) {
        void *p = mt_cxx_alloc(size, align, array, pc, stack);
        if (p != nullptr)
            return p;
        std::new_handler handler = runtime_present() ? std::get_new_handler() : nullptr;
        if (handler == nullptr)
            throw_bad_alloc(size);
        handler();
    }
}

/* The nothrow forms behave as the throwing ones and return null instead of throwing,
 * including when the new-handler throws std::bad_alloc. */
void *allocate_nothrow(std::size_t size, std::size_t align, bool array, void *pc,
                       uint32_t stack) noexcept
{
    if (!runtime_present())
        return mt_cxx_alloc(size, align, array, pc, stack);
    try {
        return allocate(size, align, array, pc, stack);
    } catch (...) {
        return nullptr;
    }
}

std::size_t align_of(std::align_val_t align)
{
    return static_cast<std::size_t>(align);
}

} // namespace

/* ---- new ----------------------------------------------------------------------------- */

MT_CXX_EXPORT void *operator new(std::size_t size)
{
    return allocate(size, 0, false, MT_CALLER, MT_STACK);
}

MT_CXX_EXPORT void *operator new[](std::size_t size)
{
    return allocate(size, 0, true, MT_CALLER, MT_STACK);
}

MT_CXX_EXPORT void *operator new(std::size_t size, const std::nothrow_t &) noexcept
{
    return allocate_nothrow(size, 0, false, MT_CALLER, MT_STACK);
}

MT_CXX_EXPORT void *operator new[](std::size_t size, const std::nothrow_t &) noexcept
{
    return allocate_nothrow(size, 0, true, MT_CALLER, MT_STACK);
}

MT_CXX_EXPORT void *operator new(std::size_t size, std::align_val_t align)
{
    return allocate(size, align_of(align), false, MT_CALLER, MT_STACK);
}

MT_CXX_EXPORT void *operator new[](std::size_t size, std::align_val_t align)
{
    return allocate(size, align_of(align), true, MT_CALLER, MT_STACK);
}

MT_CXX_EXPORT void *operator new(std::size_t size, std::align_val_t align,
                                 const std::nothrow_t &) noexcept
{
    return allocate_nothrow(size, align_of(align), false, MT_CALLER, MT_STACK);
}

MT_CXX_EXPORT void *operator new[](std::size_t size, std::align_val_t align,
                                   const std::nothrow_t &) noexcept
{
    return allocate_nothrow(size, align_of(align), true, MT_CALLER, MT_STACK);
}

/* ---- delete -------------------------------------------------------------------------- */

MT_CXX_EXPORT void operator delete(void *ptr) noexcept
{
    mt_cxx_release(ptr, 0, 0, false, MT_CALLER, MT_FRAME, MT_DELETE_STACK(ptr));
}

MT_CXX_EXPORT void operator delete[](void *ptr) noexcept
{
    mt_cxx_release(ptr, 0, 0, true, MT_CALLER, MT_FRAME, MT_DELETE_STACK(ptr));
}

MT_CXX_EXPORT void operator delete(void *ptr, const std::nothrow_t &) noexcept
{
    mt_cxx_release(ptr, 0, 0, false, MT_CALLER, MT_FRAME, MT_DELETE_STACK(ptr));
}

MT_CXX_EXPORT void operator delete[](void *ptr, const std::nothrow_t &) noexcept
{
    mt_cxx_release(ptr, 0, 0, true, MT_CALLER, MT_FRAME, MT_DELETE_STACK(ptr));
}

MT_CXX_EXPORT void operator delete(void *ptr, std::size_t size) noexcept
{
    mt_cxx_release(ptr, 0, size, false, MT_CALLER, MT_FRAME, MT_DELETE_STACK(ptr));
}

MT_CXX_EXPORT void operator delete[](void *ptr, std::size_t size) noexcept
{
    mt_cxx_release(ptr, 0, size, true, MT_CALLER, MT_FRAME, MT_DELETE_STACK(ptr));
}

MT_CXX_EXPORT void operator delete(void *ptr, std::align_val_t align) noexcept
{
    mt_cxx_release(ptr, align_of(align), 0, false, MT_CALLER, MT_FRAME, MT_DELETE_STACK(ptr));
}

MT_CXX_EXPORT void operator delete[](void *ptr, std::align_val_t align) noexcept
{
    mt_cxx_release(ptr, align_of(align), 0, true, MT_CALLER, MT_FRAME, MT_DELETE_STACK(ptr));
}

MT_CXX_EXPORT void operator delete(void *ptr, std::align_val_t align,
                                   const std::nothrow_t &) noexcept
{
    mt_cxx_release(ptr, align_of(align), 0, false, MT_CALLER, MT_FRAME, MT_DELETE_STACK(ptr));
}

MT_CXX_EXPORT void operator delete[](void *ptr, std::align_val_t align,
                                     const std::nothrow_t &) noexcept
{
    mt_cxx_release(ptr, align_of(align), 0, true, MT_CALLER, MT_FRAME, MT_DELETE_STACK(ptr));
}

MT_CXX_EXPORT void operator delete(void *ptr, std::size_t size, std::align_val_t align) noexcept
{
    mt_cxx_release(ptr, align_of(align), size, false, MT_CALLER, MT_FRAME, MT_DELETE_STACK(ptr));
}

MT_CXX_EXPORT void operator delete[](void *ptr, std::size_t size, std::align_val_t align) noexcept
{
    mt_cxx_release(ptr, align_of(align), size, true, MT_CALLER, MT_FRAME, MT_DELETE_STACK(ptr));
}
