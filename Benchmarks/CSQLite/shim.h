// SQLite's C API for the benchmark's raw baseline. `import SQLite3` exists only on Apple's
// platforms; elsewhere the system's <sqlite3.h> (libsqlite3-dev) is reached through this module.
#include <sqlite3.h>
