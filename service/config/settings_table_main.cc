// halma_settings_table: the settings table of docs/configuration.md.
//
//   halma_settings_table                 prints the block
//   halma_settings_table --check FILE    exit 1 unless FILE's block is it
//   halma_settings_table --write FILE    rewrites FILE's block
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "absl/status/statusor.h"
#include "service/config/settings_markdown.h"

int main(int argc, char** argv) {
  using halma::service::SettingsMarkdown;
  using halma::service::WithSettingsMarkdown;
  if (argc == 1) {
    std::cout << SettingsMarkdown();
    return 0;
  }
  const std::string mode = argv[1];
  if (argc != 3 || (mode != "--check" && mode != "--write")) {
    std::cerr << "usage: halma_settings_table [--check FILE | --write FILE]\n";
    return 2;
  }
  const std::string path = argv[2];
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "halma_settings_table: cannot read " << path << "\n";
    return 2;
  }
  std::ostringstream text;
  text << in.rdbuf();
  const std::string document = text.str();
  absl::StatusOr<std::string> updated = WithSettingsMarkdown(document);
  if (!updated.ok()) {
    std::cerr << "halma_settings_table: " << path << ": "
              << updated.status().message() << "\n";
    return 1;
  }
  if (mode == "--check") {
    if (*updated == document) return 0;
    std::cerr << "halma_settings_table: the settings table of " << path
              << " is not the one service/config/settings.h makes; rewrite "
                 "it with: halma_settings_table --write "
              << path << "\n";
    return 1;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << *updated;
  if (!out) {
    std::cerr << "halma_settings_table: cannot write " << path << "\n";
    return 2;
  }
  return 0;
}
