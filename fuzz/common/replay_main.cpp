// main() for fuzz targets built without libFuzzer (g++, CI regression mode): runs
// LLVMFuzzerTestOneInput on every file given, or on every file under every directory given, in
// sorted order. A finding traps exactly as under libFuzzer.
//   --tags                 print how many inputs hit each coverage tag
//   --require-tags=FILE    fail unless every tag listed in FILE (one per line, '#' comments) was
//   hit
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {
bool replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", file.c_str());
    return false;
  }
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  gradconf::fuzz::begin_input();
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  return true;
}

std::vector<std::string> read_required_tags(const std::string& path, bool* ok) {
  std::vector<std::string> tags;
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    *ok = false;
  }
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') tags.push_back(line);
  }
  return tags;
}
}  // namespace

int main(int argc, char** argv) {
  bool ok = true, print_tags = false;
  std::vector<std::string> required;
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--tags") {
      print_tags = true;
    } else if (arg.rfind("--require-tags=", 0) == 0) {
      required = read_required_tags(arg.substr(15), &ok);
    } else {
      inputs.emplace_back(arg);
    }
  }
  auto* counts = (print_tags || !required.empty()) ? &gradconf::fuzz::enable_tags() : nullptr;
  int replayed = 0;
  for (const auto& path : inputs) {
    if (std::filesystem::is_directory(path)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
      for (const auto& file : files) ok = replay(file) && ok, ++replayed;
    } else if (std::filesystem::exists(path)) {
      ok = replay(path) && ok;
      ++replayed;
    } else if (path.parent_path().filename() != "regressions" &&
               path.parent_path().parent_path().filename() != "regressions") {
      // A target without regressions yet has no regressions/<target> directory.
      std::fprintf(stderr, "no such file or directory: %s\n", path.c_str());
      ok = false;
    }
  }
  std::printf("replayed %d inputs\n", replayed);
  if (print_tags && counts) {
    for (const auto& [name, count] : *counts) std::printf("  %-48s %d\n", name.c_str(), count);
  }
  for (const std::string& tag : required) {
    if (counts->find(tag) == counts->end()) {
      std::fprintf(stderr, "required tag never hit: %s\n", tag.c_str());
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
