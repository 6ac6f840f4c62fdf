#include "serialize/safetensors.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <set>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "serialize/json.h"
#include "tensorgen/ops.h"

// Note [Reading untrusted safetensors]
// A file may be truncated, corrupt or written to attack the reader, so nothing in it is
// trusted before it is checked against the bytes actually present: the header length
// against the file size (before any allocation of that size), the JSON against strict UTF-8
// and a nesting bound (the parser recurses), every number against overflow, and every
// tensor's byte range against the data section. The ranges must tile the data section as
// the safetensors package requires: sorted by begin, each starts where the previous ended
// and the last ends at the end of the file, which rules out overlaps and holes alike. Only
// then is memory allocated for tensors and data copied, so a hostile file costs at most
// its own size in memory and never reads out of bounds. The data itself is trusted except
// for BOOL tensors, whose bytes must be 0 or 1 (any other is not a C++ bool).

namespace tg::serialize {

namespace {

struct DtypeName {
  ScalarType type;
  const char* name;
};

constexpr DtypeName kDtypeNames[] = {
    {ScalarType::Bool, "BOOL"}, {ScalarType::Byte, "U8"},    {ScalarType::Char, "I8"},  {ScalarType::Short, "I16"},
    {ScalarType::Int, "I32"},   {ScalarType::Long, "I64"},   {ScalarType::Half, "F16"}, {ScalarType::BFloat16, "BF16"},
    {ScalarType::Float, "F32"}, {ScalarType::Double, "F64"},
};

ScalarType dtype_from_name(const std::string& name, const std::string& where) {
  for (const auto& entry : kDtypeNames) {
    if (name == entry.name) return entry.type;
  }
  std::string known;
  for (const auto& entry : kDtypeNames) known += std::string(known.empty() ? "" : ", ") + entry.name;
  TG_THROW(ValueError, where, ": expected a dtype tensorgen has (", known, "), got \"", name, "\"");
}

// Reverses the bytes of each element on a big-endian host: the file is little-endian.
void to_or_from_little_endian(char* data, size_t count, size_t itemsize) {
  if constexpr (std::endian::native == std::endian::big) {
    for (size_t i = 0; i < count; ++i) std::reverse(data + i * itemsize, data + (i + 1) * itemsize);
  } else {
    (void)data, (void)count, (void)itemsize;
  }
}

Tensor contiguous_cpu(const Tensor& t) {
  NoGradGuard no_grad;
  Tensor cpu = t.detach();
  if (!cpu.is_cpu()) cpu = cpu.to(Device(kCPU));
  return cpu.contiguous();
}

void check_names(const NamedTensors& tensors, const std::map<std::string, std::string>& metadata) {
  std::set<std::string> seen;
  for (const auto& [name, tensor] : tensors) {
    TG_CHECK_VALUE(!name.empty(), "[save_tensors] expected non-empty tensor names, got an empty one");
    TG_CHECK_VALUE(name != "__metadata__", "[save_tensors] expected tensor names other than \"__metadata__\" ",
                   "(the format's metadata key), got it as a tensor name");
    TG_CHECK_VALUE(is_valid_utf8(name), "[save_tensors] expected tensor names in UTF-8, got invalid UTF-8 in \"", name,
                   "\"");
    TG_CHECK_VALUE(seen.insert(name).second, "[save_tensors] expected unique tensor names, got \"", name, "\" twice");
    TG_CHECK_VALUE(tensor.defined(), "[save_tensors] expected defined tensors, got an undefined one named \"", name,
                   "\"");
  }
  for (const auto& [key, value] : metadata) {
    TG_CHECK_VALUE(is_valid_utf8(key) && is_valid_utf8(value),
                   "[save_tensors] expected metadata in UTF-8, got invalid UTF-8 under key \"", key, "\"");
  }
}

// The header text, padded with spaces to a multiple of 8 bytes as the safetensors package
// writes it (so that the data section starts aligned).
std::string make_header(const std::vector<Tensor>& cpu, const NamedTensors& tensors,
                        const std::map<std::string, std::string>& metadata) {
  std::vector<std::pair<std::string, JsonValue>> members;
  if (!metadata.empty()) {
    std::vector<std::pair<std::string, JsonValue>> entries;
    for (const auto& [key, value] : metadata) entries.emplace_back(key, JsonValue::string(value));
    members.emplace_back("__metadata__", JsonValue::object(std::move(entries)));
  }
  uint64_t offset = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    std::vector<JsonValue> shape;
    for (int64_t size : cpu[i].sizes()) shape.push_back(JsonValue::number_text(std::to_string(size)));
    const uint64_t end = offset + cpu[i].nbytes();
    members.emplace_back(
        tensors[i].first,
        JsonValue::object({{"dtype", JsonValue::string(safetensors_dtype_name(cpu[i].scalar_type()))},
                           {"shape", JsonValue::array(std::move(shape))},
                           {"data_offsets", JsonValue::array({JsonValue::number_text(std::to_string(offset)),
                                                              JsonValue::number_text(std::to_string(end))})}}));
    offset = end;
  }
  std::string header = write_json(JsonValue::object(std::move(members)));
  header.append((8 - header.size() % 8) % 8, ' ');
  return header;
}

std::string length_prefix(uint64_t n) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out;
}

// Writes the tensors to `sink(const char*, size_t)`.
template <typename Sink>
void write_all(const NamedTensors& tensors, const std::map<std::string, std::string>& metadata, Sink&& sink) {
  check_names(tensors, metadata);
  std::vector<Tensor> cpu;
  cpu.reserve(tensors.size());
  for (const auto& entry : tensors) cpu.push_back(contiguous_cpu(entry.second));
  const std::string header = make_header(cpu, tensors, metadata);
  sink(length_prefix(header.size()).data(), 8);
  sink(header.data(), header.size());
  for (const Tensor& t : cpu) {
    if (t.nbytes() == 0) continue;
    if constexpr (std::endian::native == std::endian::big) {
      std::string copy(static_cast<const char*>(t.const_data_ptr()), t.nbytes());
      to_or_from_little_endian(copy.data(), static_cast<size_t>(t.numel()), t.itemsize());
      sink(copy.data(), copy.size());
    } else {
      sink(static_cast<const char*>(t.const_data_ptr()), t.nbytes());
    }
  }
}

// One tensor of a checked header: where its bytes lie within the data section.
struct Entry {
  std::string name;
  ScalarType dtype;
  std::vector<int64_t> shape;
  uint64_t begin, end;
};

struct Header {
  std::vector<Entry> entries;  // sorted by begin
  std::map<std::string, std::string> metadata;
};

// Checks the header against a data section of `data_size` bytes. See Note [Reading untrusted
// safetensors].
Header check_header(std::string_view header_text, uint64_t data_size, const std::string& source) {
  TG_CHECK_VALUE(!header_text.empty() && header_text[0] == '{', source,
                 ": expected the JSON header to start with '{', got ",
                 header_text.empty() ? std::string("an empty header")
                                     : "byte " + std::to_string(static_cast<unsigned char>(header_text[0])));
  const JsonValue root = parse_json(header_text, source);
  Header header;
  for (const auto& [name, value] : root.members()) {
    const std::string where = source + ": tensor \"" + name + "\"";
    if (name == "__metadata__") {
      TG_CHECK_VALUE(value.is_object(), source, ": expected \"__metadata__\" to be an object of strings");
      for (const auto& [key, text] : value.members()) {
        TG_CHECK_VALUE(text.is_string(), source, ": expected \"__metadata__\" values to be strings, got another ",
                       "JSON value under \"", key, "\"");
        header.metadata.emplace(key, text.text());
      }
      continue;
    }
    TG_CHECK_VALUE(value.is_object(), where, ": expected an object {dtype, shape, data_offsets}");
    const JsonValue* dtype = value.find("dtype");
    const JsonValue* shape = value.find("shape");
    const JsonValue* offsets = value.find("data_offsets");
    TG_CHECK_VALUE(dtype != nullptr && dtype->is_string(), where, ": expected a string \"dtype\"");
    TG_CHECK_VALUE(shape != nullptr && shape->is_array(), where, ": expected an array \"shape\"");
    TG_CHECK_VALUE(offsets != nullptr && offsets->is_array() && offsets->items().size() == 2, where,
                   ": expected \"data_offsets\" as [begin, end]");
    for (const auto& member : value.members()) {
      TG_CHECK_VALUE(member.first == "dtype" || member.first == "shape" || member.first == "data_offsets", where,
                     ": expected only dtype, shape and data_offsets, got \"", member.first, "\"");
    }
    Entry entry{name, dtype_from_name(dtype->text(), where), {}, 0, 0};
    uint64_t numel = 1;
    bool overflow = false;
    for (const JsonValue& size : shape->items()) {
      const uint64_t n = json_to_uint64(size, where + " shape");
      TG_CHECK_VALUE(n <= static_cast<uint64_t>(INT64_MAX), where, ": expected sizes below 2^63, got ", n);
      if (n != 0 && numel > UINT64_MAX / n) overflow = true;
      numel = overflow ? numel : numel * n;
      entry.shape.push_back(static_cast<int64_t>(n));
    }
    entry.begin = json_to_uint64(offsets->items()[0], where + " data_offsets[0]");
    entry.end = json_to_uint64(offsets->items()[1], where + " data_offsets[1]");
    TG_CHECK_VALUE(entry.begin <= entry.end && entry.end <= data_size, where, ": expected data_offsets within the ",
                   data_size, " data bytes of the file, got [", entry.begin, ", ", entry.end, "]");
    const uint64_t itemsize = element_size(entry.dtype);
    TG_CHECK_VALUE(
        !overflow && numel <= UINT64_MAX / itemsize && numel * itemsize == entry.end - entry.begin, where,
        ": expected data_offsets spanning ",
        overflow ? std::string("numel * itemsize") : std::to_string(numel) + " * " + std::to_string(itemsize),
        " bytes for its shape and dtype, got ", entry.end - entry.begin, " bytes");
    header.entries.push_back(std::move(entry));
  }
  std::stable_sort(header.entries.begin(), header.entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin < b.begin || (a.begin == b.begin && a.end < b.end);
  });
  uint64_t expected_begin = 0;
  const Entry* previous = nullptr;
  for (const Entry& entry : header.entries) {
    if (entry.begin < expected_begin) {
      TG_THROW(ValueError, source, ": tensor \"", entry.name, "\": expected its data to begin at byte ", expected_begin,
               " after \"", previous->name, "\", got ", entry.begin, " (overlapping tensors)");
    }
    TG_CHECK_VALUE(entry.begin == expected_begin, source, ": tensor \"", entry.name,
                   "\": expected its data to begin at ", "byte ", expected_begin, ", got ", entry.begin,
                   " (a hole in the data section)");
    expected_begin = entry.end;
    previous = &entry;
  }
  TG_CHECK_VALUE(expected_begin == data_size, source, ": expected the tensors to cover the ", data_size,
                 " data bytes, got ", expected_begin, " bytes covered (trailing bytes)");
  return header;
}

// Reads the 8-byte header length and checks it against the total size of the source.
uint64_t header_length(const unsigned char* prefix, uint64_t total_size, const std::string& source) {
  TG_CHECK_VALUE(total_size >= 8, source, ": expected at least the 8-byte header length, got a file of ", total_size,
                 " bytes");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | prefix[i];
  TG_CHECK_VALUE(n <= kMaxHeaderBytes, source, ": expected a header of at most ", kMaxHeaderBytes, " bytes, got ", n);
  TG_CHECK_VALUE(n <= total_size - 8, source, ": expected a header length within the file's ", total_size - 8,
                 " bytes after the length, got ", n, " (truncated or corrupt file)");
  return n;
}

Tensor empty_for(const Entry& entry) {
  return make_empty_tensor(IntArrayRef(entry.shape.data(), entry.shape.size()), entry.dtype, Device(kCPU));
}

// A bool element is one byte holding 0 or 1; any other byte read as a C++ bool is undefined
// behaviour in every kernel that reads it, so the file is refused here, where it can be named.
void check_bool_bytes(const Tensor& t, const Entry& entry, const std::string& where) {
  if (entry.dtype != ScalarType::Bool) return;
  const auto* bytes = static_cast<const unsigned char*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel(); ++i) {
    TG_CHECK_VALUE(bytes[i] <= 1, where, ": tensor \"", entry.name, "\" of dtype BOOL: expected bytes 0 or 1, got ",
                   static_cast<int>(bytes[i]), " at element ", i);
  }
}

}  // namespace

const char* safetensors_dtype_name(ScalarType type) {
  for (const auto& entry : kDtypeNames) {
    if (entry.type == type) return entry.name;
  }
  TG_THROW(ValueError, "[save_tensors] expected a dtype safetensors stores, got ", type);
}

std::string save_to_bytes(const NamedTensors& tensors, const std::map<std::string, std::string>& metadata) {
  std::string out;
  write_all(tensors, metadata, [&](const char* data, size_t n) { out.append(data, n); });
  return out;
}

void save_tensors(const NamedTensors& tensors, const std::string& path,
                  const std::map<std::string, std::string>& metadata) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  TG_CHECK(file.is_open(), "[save_tensors] ", path, ": expected a writable file, could not open it for writing");
  write_all(tensors, metadata, [&](const char* data, size_t n) { file.write(data, static_cast<std::streamsize>(n)); });
  file.close();
  TG_CHECK(!file.fail(), "[save_tensors] ", path, ": expected to write the whole file, the write failed");
}

SafetensorsFile load_from_bytes(const std::string& bytes, const std::string& source) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::string where = "[load_tensors] " + source;
  const uint64_t n = header_length(data, bytes.size(), where);
  const uint64_t data_begin = 8 + n;
  Header header = check_header(std::string_view(bytes).substr(8, n), bytes.size() - data_begin, where);
  SafetensorsFile result;
  result.metadata = std::move(header.metadata);
  for (const Entry& entry : header.entries) {
    Tensor t = empty_for(entry);
    if (entry.end > entry.begin) {
      std::memcpy(t.data_ptr(), bytes.data() + data_begin + entry.begin, entry.end - entry.begin);
      to_or_from_little_endian(static_cast<char*>(t.data_ptr()), static_cast<size_t>(t.numel()), t.itemsize());
      check_bool_bytes(t, entry, where);
    }
    result.tensors.emplace_back(entry.name, std::move(t));
  }
  return result;
}

SafetensorsFile load_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  TG_CHECK(file.is_open(), "[load_tensors] ", path, ": expected a readable file, could not open it");
  const std::streamoff end = file.tellg();
  TG_CHECK(end >= 0, "[load_tensors] ", path, ": expected a regular file whose size can be read");
  const uint64_t total = static_cast<uint64_t>(end);
  unsigned char prefix[8] = {};
  file.seekg(0);
  file.read(reinterpret_cast<char*>(prefix), total >= 8 ? 8 : 0);
  const std::string where = "[load_tensors] " + path;
  const uint64_t n = header_length(prefix, total, where);
  std::string header_text(n, '\0');
  file.read(header_text.data(), static_cast<std::streamsize>(n));
  TG_CHECK(!file.fail(), "[load_tensors] ", path, ": expected to read the ", n, "-byte header, the read failed");
  Header header = check_header(header_text, total - 8 - n, where);
  SafetensorsFile result;
  result.metadata = std::move(header.metadata);
  for (const Entry& entry : header.entries) {
    Tensor t = empty_for(entry);
    const uint64_t size = entry.end - entry.begin;
    if (size > 0) {
      file.seekg(static_cast<std::streamoff>(8 + n + entry.begin));
      file.read(static_cast<char*>(t.data_ptr()), static_cast<std::streamsize>(size));
      TG_CHECK(!file.fail(), "[load_tensors] ", path, ": expected to read ", size, " bytes of tensor \"", entry.name,
               "\", the read failed (was the file changed while reading?)");
      to_or_from_little_endian(static_cast<char*>(t.data_ptr()), static_cast<size_t>(t.numel()), t.itemsize());
      check_bool_bytes(t, entry, where);
    }
    result.tensors.emplace_back(entry.name, std::move(t));
  }
  return result;
}

NamedTensors load_tensors(const std::string& path) { return load_file(path).tensors; }

}  // namespace tg::serialize

namespace tg {

void save(const Tensor& tensor, const std::string& path) { serialize::save_tensors({{"0", tensor}}, path); }

void save(const std::vector<Tensor>& tensors, const std::string& path) {
  serialize::NamedTensors named;
  for (size_t i = 0; i < tensors.size(); ++i) named.emplace_back(std::to_string(i), tensors[i]);
  serialize::save_tensors(named, path);
}

void load(Tensor& tensor, const std::string& path) {
  serialize::NamedTensors named = serialize::load_tensors(path);
  TG_CHECK_VALUE(named.size() == 1, "[load] ", path, ": expected a file of one tensor, got ", named.size(),
                 " tensors (load them into a std::vector<Tensor> or with tg::serialize::load_tensors)");
  tensor = std::move(named[0].second);
}

void load(std::vector<Tensor>& tensors, const std::string& path) {
  serialize::NamedTensors named = serialize::load_tensors(path);
  std::vector<Tensor> result(named.size());
  std::vector<bool> filled(named.size(), false);
  for (auto& [name, tensor] : named) {
    size_t index = named.size();
    const bool numeric = !name.empty() && name.size() <= 18 &&
                         std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (numeric) index = std::stoull(name);
    TG_CHECK_VALUE(numeric && index < named.size() && !filled[index], "[load] ", path,
                   ": expected tensors named \"0\" to \"", named.size() - 1, "\" as tg::save writes a list, got \"",
                   name, "\"");
    filled[index] = true;
    result[index] = std::move(tensor);
  }
  tensors = std::move(result);
}

}  // namespace tg
