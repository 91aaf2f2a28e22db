// ROPECHECK_TEST_ASAN: defined when this test program is built under AddressSanitizer (GCC defines
// __SANITIZE_ADDRESS__; clang, which the sanitize build uses, answers __has_feature instead).
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define ROPECHECK_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROPECHECK_TEST_ASAN 1
#endif
#endif
