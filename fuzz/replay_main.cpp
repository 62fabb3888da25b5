// A main() for a fuzz target outside libFuzzer: runs LLVMFuzzerTestOneInput once on each file named
// on the command line (tests/CMakeLists.txt replays fuzz/regressions/<target>/ this way in every
// build tree, the Release one included). The target aborts on a failure; this prints each file's CPU time.
#include <time.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s INPUT...\n", argv[0]);
    return 2;
  }
  for (int a = 1; a < argc; ++a) {
    std::ifstream file(argv[a], std::ios::binary);
    if (!file) {
      std::fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[a]);
      return 2;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    timespec start{};
    timespec end{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end);
    const double seconds =
        static_cast<double>(end.tv_sec - start.tv_sec) + 1e-9 * static_cast<double>(end.tv_nsec - start.tv_nsec);
    std::printf("%s: %.4f s of CPU\n", argv[a], seconds);
  }
  return 0;
}
