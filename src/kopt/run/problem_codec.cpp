#include "kopt/run/problem_codec.hpp"

#include "kopt/core/error.hpp"

namespace kopt::run {
using nlohmann::json;

namespace {

const spec::DType* dtype_or_throw(const std::string& name) {
  const spec::DType* dtype = spec::dtype_named(name);
  if (dtype == nullptr) throw input_error("job names an unknown dtype \"{}\"", name);
  return dtype;
}

json buffer_to_json(const spec::BoundBuffer& b) {
  json out = {{"name", b.name},       {"dtype", b.dtype->name},
              {"elements", b.elements}, {"shape", b.shape},
              {"is_output", b.is_output}, {"atol", b.tolerance.atol},
              {"rtol", b.tolerance.rtol}};
  if (b.init) out["init"] = b.init->text();
  return out;
}

spec::BoundBuffer buffer_from_json(const json& in) {
  spec::BoundBuffer b;
  b.name = in.at("name");
  b.dtype = dtype_or_throw(in.at("dtype"));
  b.elements = in.at("elements");
  b.shape = in.at("shape").get<std::vector<std::int64_t>>();
  b.is_output = in.at("is_output");
  b.tolerance = {.atol = in.at("atol"), .rtol = in.at("rtol")};
  if (in.contains("init")) b.init = spec::InitSpec::parse(in.at("init").get<std::string>());
  return b;
}

}  // namespace

json number_to_json(const spec::Number& value) {
  if (std::holds_alternative<std::int64_t>(value)) return std::get<std::int64_t>(value);
  return std::get<double>(value);
}

spec::Number number_from_json(const json& in) {
  if (in.is_number_integer()) return in.get<std::int64_t>();
  return in.get<double>();
}

json signature_to_json(const spec::KernelSignature& signature) {
  json params = json::array();
  for (const spec::KernelParam& p : signature.params) {
    params.push_back({{"name", p.name},
                      {"dtype", p.dtype->name},
                      {"pointer", p.is_pointer},
                      {"const", p.is_const},
                      {"declaration", p.declaration}});
  }
  return {{"entry", signature.entry}, {"line", signature.line}, {"params", params}};
}

spec::KernelSignature signature_from_json(const json& in) {
  spec::KernelSignature signature;
  signature.entry = in.at("entry");
  signature.line = in.at("line");
  for (const json& p : in.at("params")) {
    signature.params.push_back({.name = p.at("name"),
                                .dtype = dtype_or_throw(p.at("dtype")),
                                .is_pointer = p.at("pointer"),
                                .is_const = p.at("const"),
                                .declaration = p.at("declaration")});
  }
  return signature;
}

json case_to_json(const spec::BoundCase& bound_case) {
  json dims = json::object();
  for (const auto& [name, value] : bound_case.dims) dims[name] = number_to_json(value);
  json args = json::array();
  for (const spec::BoundArg& arg : bound_case.args) {
    if (arg.buffer) {
      args.push_back({{"buffer", buffer_to_json(*arg.buffer)}});
    } else {
      args.push_back({{"scalar",
                       {{"name", arg.scalar->name},
                        {"dtype", arg.scalar->dtype->name},
                        {"value", number_to_json(arg.scalar->value)}}}});
    }
  }
  return {{"name", bound_case.name}, {"dims", dims}, {"args", args}};
}

spec::BoundCase case_from_json(const json& in) {
  spec::BoundCase bound_case;
  bound_case.name = in.at("name");
  for (const auto& [name, value] : in.at("dims").items()) bound_case.dims[name] = number_from_json(value);
  for (const json& arg : in.at("args")) {
    spec::BoundArg bound;
    if (arg.contains("buffer")) {
      bound.buffer = buffer_from_json(arg.at("buffer"));
    } else {
      const json& s = arg.at("scalar");
      bound.scalar = spec::BoundScalar{.name = s.at("name"),
                                       .dtype = dtype_or_throw(s.at("dtype")),
                                       .value = number_from_json(s.at("value"))};
    }
    bound_case.args.push_back(std::move(bound));
  }
  return bound_case;
}

}  // namespace kopt::run
