// The target's functions are inline, in its header; C targets need a source file.
#include "CStrataRuntime.h"
