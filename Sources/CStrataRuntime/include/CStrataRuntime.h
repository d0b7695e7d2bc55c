#ifndef STRATA_RUNTIME_H
#define STRATA_RUNTIME_H

#include <stdbool.h>

/// The Swift runtime's conditional retain of a native Swift object (part of its ABI, what the
/// load of a weak reference does): retains the object and answers it, unless it is being
/// deinitialised (then NULL). The object's memory must still be allocated, which an unowned
/// reference to it guarantees. (Declared as the runtime of this toolchain defines it, returning
/// the object: SwiftData's identity tests fail if a runtime answered otherwise.)
extern void *swift_tryRetain(void *object);

/// Retains the object if it is alive (see `swift_tryRetain`).
static inline bool strata_tryRetain(void *object) { return swift_tryRetain(object) != 0; }

/// A variable of a shared library's thread-local storage, as the ELF ABI names it for the
/// dynamic linker: the library's module number and the variable's offset in its block.
typedef struct {
    unsigned long module;
    unsigned long offset;
} strata_tls_index;

/// The ELF ABI's lookup of a thread-local variable of a shared library (exported by the
/// dynamic linker; what the library's own code calls to reach the variable): the address of
/// the calling thread's instance.
extern void *__tls_get_addr(strata_tls_index *index);

/// Whether the calling thread's instance of a pointer-sized thread-local variable is set.
static inline bool strata_tls_pointer_is_set(unsigned long module, unsigned long offset) {
    strata_tls_index index = {module, offset};
    return *(void *const *)__tls_get_addr(&index) != 0;
}

/// The calling thread's instance of the first pointer of the thread-local block of the module
/// `strata_tls_find_first_pointer` was asked for on this thread (NULL before that call): a
/// thread's instance never moves, so that it is looked up once a thread.
extern __thread void *const *strata_tls_first_pointer;

/// The calling thread's instance of the first pointer of the module's thread-local block, kept
/// in `strata_tls_first_pointer`. Every call of a process names the same module.
void *const *strata_tls_find_first_pointer(unsigned long module);

/// `strata_tls_first_pointer`, for Swift (which reads no thread-local variable itself).
static inline void *const *strata_tls_kept_first_pointer(void) { return strata_tls_first_pointer; }

/// The module number of the loaded shared library whose file is named `name` (its last path
/// component), when its thread-local storage holds at least `size` bytes; 0 when no such
/// library is loaded (a library linked statically, another platform).
unsigned long strata_tls_module(const char *name, unsigned long size);

#endif
