// zlib, for the raw DEFLATE streams of Core Data's model cache (Z_MODELCACHE).
#include <zlib.h>
