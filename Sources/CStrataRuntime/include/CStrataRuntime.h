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

#endif
