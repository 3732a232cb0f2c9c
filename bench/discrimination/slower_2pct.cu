// base.cu with 2 % more arithmetic per element.
#define ITERS 510
#include "base.cu"
