// Owns the test executables' one precompiled header (tests/support/CMakeLists.txt): every test
// executable reuses the header compiled for this target, which exists for it alone and is never
// run. An executable, because executables compile with -fPIE and GCC ignores a header compiled
// with a library's -fPIC.
int main() {
  return 0;
}
