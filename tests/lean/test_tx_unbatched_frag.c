/* test_tx_unbatched.c in a threaded build that fragments (tests/CMakeLists.txt). */
#include "test_tx_unbatched.c"
