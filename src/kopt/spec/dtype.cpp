#include "kopt/spec/dtype.hpp"

#include <set>

#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"
#include "kopt/spec/data_file.hpp"
#include "kopt/spec/source_text.hpp"
#include "kopt/spec/toml.hpp"

namespace kopt::spec {
namespace {

constexpr std::string_view kTableFile = "data/dtypes.toml";

// Reads one [[dtype]] entry; `where` names the file and the entry for error messages.
class EntryReader {
 public:
  EntryReader(const toml::table& entry, std::string where) : entry_(entry), where_(std::move(where)) {}

  void reject_unknown_keys() const {
    static const std::vector<std::string_view> known = {"name", "c_names", "kind", "bytes", "numpy", "torch", "atol", "rtol", "epsilon"};
    if (auto key = first_unknown_key(entry_, known)) throw failure(unknown_key_text(*key, known));
  }

  std::string string(std::string_view key) const {
    std::optional<std::string> value = entry_[key].value<std::string>();
    if (!value || value->empty()) throw failure(fmt::format("\"{}\" must be a non-empty string", key));
    return *value;
  }

  std::vector<std::string> strings(std::string_view key) const {
    const toml::array* array = entry_[key].as_array();
    if (array == nullptr || array->empty()) {
      throw failure(fmt::format("\"{}\" must be a non-empty array of strings", key));
    }
    std::vector<std::string> values;
    for (const toml::node& element : *array) {
      std::optional<std::string> value = element.value<std::string>();
      if (!value) throw failure(fmt::format("\"{}\" must be a non-empty array of strings", key));
      values.push_back(collapse_whitespace(*value));
    }
    return values;
  }

  // A tolerance written as 0 is a TOML integer; value<double>() converts it.
  double non_negative_number(std::string_view key) const {
    std::optional<double> value = entry_[key].value<double>();
    if (!value || !(*value >= 0)) throw failure(fmt::format("\"{}\" must be a number >= 0", key));
    return *value;
  }

  std::size_t bytes() const {
    std::optional<std::int64_t> value = entry_["bytes"].value<std::int64_t>();
    if (!value || (*value != 1 && *value != 2 && *value != 4 && *value != 8)) {
      throw failure("\"bytes\" must be 1, 2, 4 or 8");
    }
    return static_cast<std::size_t>(*value);
  }

  DTypeKind kind() const {
    std::string kind = string("kind");
    if (kind == "floating") return DTypeKind::floating;
    if (kind == "signed_integer") return DTypeKind::signed_integer;
    if (kind == "unsigned_integer") return DTypeKind::unsigned_integer;
    throw failure(fmt::format("unknown kind \"{}\" (floating, signed_integer, unsigned_integer)", kind));
  }

  Error failure(std::string_view what) const { return input_error("{}: {}", where_, what); }

 private:
  const toml::table& entry_;
  std::string where_;
};

DType read_entry(const toml::table& entry, std::string where) {
  EntryReader reader(entry, std::move(where));
  reader.reject_unknown_keys();
  DType dtype;
  dtype.name = reader.string("name");
  dtype.c_names = reader.strings("c_names");
  dtype.kind = reader.kind();
  dtype.bytes = reader.bytes();
  dtype.numpy_descr = reader.string("numpy");
  // torch's name where it differs from kopt's (float8_e4m3fn); absent: the same name.
  dtype.torch_name = entry["torch"].value<std::string>().value_or(dtype.name);
  dtype.default_atol = reader.non_negative_number("atol");
  dtype.default_rtol = reader.non_negative_number("rtol");
  dtype.epsilon = reader.non_negative_number("epsilon");
  return dtype;
}

std::string entry_label(std::string_view file_name, std::size_t index, const toml::node& entry) {
  std::string label = fmt::format("{}:{}: dtype entry {}", file_name, entry.source().begin.line, index + 1);
  if (const toml::table* table = entry.as_table()) {
    if (std::optional<std::string> name = (*table)["name"].value<std::string>()) {
      label += fmt::format(" (\"{}\")", *name);
    }
  }
  return label;
}

// Names and spellings must be unique, or a lookup would depend on table order.
void check_unique(const std::vector<DType>& dtypes, std::string_view file_name) {
  std::set<std::string, std::less<>> names, c_names;
  for (const DType& dtype : dtypes) {
    if (!names.insert(dtype.name).second) {
      throw input_error("{}: dtype \"{}\" is defined twice", file_name, dtype.name);
    }
    for (const std::string& c_name : dtype.c_names) {
      if (!c_names.insert(c_name).second) {
        throw input_error("{}: dtype \"{}\": spelling \"{}\" is already used by another dtype", file_name,
                          dtype.name, c_name);
      }
    }
  }
}

}  // namespace

std::vector<DType> parse_dtype_table(std::string_view toml_text, std::string_view file_name) {
  const toml::table table = parse_data_file(toml_text, file_name);
  const toml::array* entries = table["dtype"].as_array();
  if (entries == nullptr || entries->empty()) {
    throw input_error("{}: no [[dtype]] entries", file_name);
  }
  std::vector<DType> dtypes;
  for (std::size_t index = 0; index < entries->size(); ++index) {
    const toml::node& entry = *entries->get(index);
    std::string where = entry_label(file_name, index, entry);
    if (!entry.is_table()) throw input_error("{}: must be a table", where);
    dtypes.push_back(read_entry(*entry.as_table(), std::move(where)));
  }
  check_unique(dtypes, file_name);
  return dtypes;
}

std::span<const DType> all_dtypes() {
  static const std::vector<DType> dtypes = parse_dtype_table(data_file(kTableFile), kTableFile);
  return dtypes;
}

const DType* dtype_from_c_name(std::string_view c_name) {
  // Spellings are compared word by word: "unsigned  int" is "unsigned int".
  const std::string spelling = collapse_whitespace(c_name);
  for (const DType& dtype : all_dtypes()) {
    for (const std::string& candidate : dtype.c_names) {
      if (candidate == spelling) return &dtype;
    }
  }
  return nullptr;
}

const DType* dtype_named(std::string_view name) {
  for (const DType& dtype : all_dtypes()) {
    if (dtype.name == name) return &dtype;
  }
  return nullptr;
}

}  // namespace kopt::spec
