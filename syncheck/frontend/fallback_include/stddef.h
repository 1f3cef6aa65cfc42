/* syncheck fallback for the compiler's <stddef.h>, used only when no GCC include dir is found. */
#ifndef SYNCHECK_FALLBACK_STDDEF_H
#define SYNCHECK_FALLBACK_STDDEF_H
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
#ifndef NULL
#define NULL 0
#endif
#define offsetof(t, m) __builtin_offsetof(t, m)
#endif
