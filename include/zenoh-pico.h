#include "zmote.h"
