#pragma once
// Whether this test binary runs under AddressSanitizer (preset asan) or ThreadSanitizer (preset
// tsan), and with it the workers and plugins of the same build, for the few checks whose premise
// a sanitizer runtime breaks. Each use says why.

namespace benchd::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif

#if defined(__SANITIZE_THREAD__)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif

/// Why a test that leaves a worker without a free descriptor is skipped under the sanitizers:
/// UBSan's type checks probe memory through a pipe, which then cannot be made, and report a
/// valid object as one with an "invalid vptr".
inline constexpr const char* kNoDescriptorsUnderSanitizers =
    "the sanitizers' runtime needs free descriptors (UBSan probes memory through a pipe)";

}  // namespace benchd::testing
