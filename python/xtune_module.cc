// The _xtune extension behind the `xtune` Python package (python/xtune):
// the C++ API of include/xtune/compiler.h and the cache tools. Arrays cross
// as (element type name, dims, bytes) so NumPy stays on the Python side
// (python/xtune/__init__.py). The GIL is released while compiling and
// running; errors raise xtune.Error with xtune's status message.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "tools/cache_command.h"
#include "xtune/compiler.h"

namespace py = pybind11;

namespace xtune {
namespace {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void Raise(const absl::Status& status) { throw Error(status.ToString()); }

// An array as Python sees it: element type name, dims, raw row-major bytes.
using PyArray = std::tuple<std::string, std::vector<int64_t>, py::bytes>;

bool ConvertedThroughF32(ElementType t) {
  return t == ElementType::kBF16 || t == ElementType::kF8E4M3FN || t == ElementType::kF8E5M2 ||
         t == ElementType::kF8E4M3FNUZ || t == ElementType::kF8E5M2FNUZ ||
         t == ElementType::kF8E4M3B11FNUZ;
}

class PyProgram {
 public:
  PyProgram(std::shared_ptr<Compiler> compiler, std::unique_ptr<Program> program)
      : compiler_(std::move(compiler)), program_(std::move(program)) {}

  // [(name, type name, dims)], tuple parameters as type "tuple".
  std::vector<std::tuple<std::string, std::string, std::vector<int64_t>>> Parameters() const {
    std::vector<std::tuple<std::string, std::string, std::vector<int64_t>>> out;
    for (const ParameterShape& p : program_->parameters()) {
      out.emplace_back(p.name, p.tuple ? "tuple" : ElementTypeName(p.type), p.dims);
    }
    return out;
  }

  py::dict Stats() const {
    const CompileStats& s = program_->stats();
    py::dict d;
    d["fusions"] = s.fusions;
    d["cache_hits"] = s.cache_hits;
    d["tuned"] = s.tuned;
    d["defaults"] = s.defaults;
    d["summary"] = s.summary;
    return d;
  }

  // Arguments whose element type goes through f32 (bf16, the 8-bit floats)
  // come as f32 bytes and are rounded to the parameter's type by Run.
  std::vector<PyArray> Run(const std::vector<PyArray>& args) {
    std::vector<Array> arrays;
    for (const auto& [type, dims, data] : args) {
      std::string bytes = data;  // copied while the GIL is held
      if (type == "f32-as-double") {
        std::vector<double> values(bytes.size() / sizeof(float));
        for (size_t i = 0; i < values.size(); ++i) {
          float f;
          std::memcpy(&f, bytes.data() + i * sizeof(float), sizeof(float));
          values[i] = f;
        }
        arrays.emplace_back(dims, std::move(values));
        continue;
      }
      ElementType t;
      if (!TypeNamed(type, &t)) throw Error("INVALID_ARGUMENT: unknown element type '" + type + "'");
      arrays.push_back(Array::FromBytes(t, dims, std::vector<uint8_t>(bytes.begin(), bytes.end())));
    }
    absl::StatusOr<std::vector<Array>> outputs;
    {
      py::gil_scoped_release release;
      outputs = program_->Run(arrays);
    }
    if (!outputs.ok()) Raise(outputs.status());
    std::vector<PyArray> out;
    for (const Array& a : *outputs) {
      if (ConvertedThroughF32(a.type())) {
        std::vector<double> values = a.values();
        std::string f32(values.size() * sizeof(float), '\0');
        for (size_t i = 0; i < values.size(); ++i) {
          const float f = static_cast<float>(values[i]);
          std::memcpy(f32.data() + i * sizeof(float), &f, sizeof(float));
        }
        out.emplace_back("f32", a.dims(), py::bytes(f32));
      } else {
        out.emplace_back(ElementTypeName(a.type()), a.dims(),
                         py::bytes(reinterpret_cast<const char*>(a.bytes().data()),
                                   a.bytes().size()));
      }
    }
    return out;
  }

  bool Verify(uint64_t seed) {
    absl::Status s;
    {
      py::gil_scoped_release release;
      s = program_->RunAndVerify(seed);
    }
    if (!s.ok()) Raise(s);
    return true;
  }

 private:
  static bool TypeNamed(const std::string& name, ElementType* out) {
    for (int i = 0; i <= static_cast<int>(ElementType::kF8E4M3B11FNUZ); ++i) {
      if (name == ElementTypeName(static_cast<ElementType>(i))) {
        *out = static_cast<ElementType>(i);
        return true;
      }
    }
    return false;
  }

  std::shared_ptr<Compiler> compiler_;  // its backend outlives the program
  std::unique_ptr<Program> program_;
};

std::unique_ptr<PyProgram> Compile(const std::string& hlo, bool is_path, const std::string& backend,
                                   const std::vector<std::string>& flags) {
  py::gil_scoped_release release;
  absl::StatusOr<CompilerOptions> options = CompilerOptionsFromFlags(flags);
  if (!options.ok()) Raise(options.status());
  options->backend = backend;
  absl::StatusOr<std::unique_ptr<Compiler>> compiler = Compiler::Create(*options);
  if (!compiler.ok()) Raise(compiler.status());
  std::shared_ptr<Compiler> shared = std::move(*compiler);
  absl::StatusOr<std::unique_ptr<Program>> program =
      is_path ? shared->CompileFile(hlo) : shared->CompileText(hlo);
  if (!program.ok()) Raise(program.status());
  return std::make_unique<PyProgram>(shared, std::move(*program));
}

// `xtune cache ARGV...` in this process: (exit code, stdout, stderr).
std::tuple<int, std::string, std::string> CacheTool(const std::vector<std::string>& argv) {
  static std::mutex mu;  // std::cout and std::cerr are redirected
  std::lock_guard<std::mutex> lock(mu);
  std::ostringstream out, err;
  std::streambuf* old_out = std::cout.rdbuf(out.rdbuf());
  std::streambuf* old_err = std::cerr.rdbuf(err.rdbuf());
  int code;
  try {
    py::gil_scoped_release release;
    code = CacheCommand(argv);
  } catch (...) {
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    throw;
  }
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  return {code, out.str(), err.str()};
}

}  // namespace
}  // namespace xtune

PYBIND11_MODULE(_xtune, m) {
  using namespace xtune;
  m.doc() = "xtune's C++ API (use the xtune package)";
  py::register_exception<Error>(m, "Error", PyExc_RuntimeError);
  py::class_<PyProgram>(m, "Program")
      .def("parameters", &PyProgram::Parameters)
      .def("stats", &PyProgram::Stats)
      .def("run", &PyProgram::Run)
      .def("verify", &PyProgram::Verify, py::arg("seed") = 0);
  m.def("compile", &Compile, py::arg("hlo"), py::arg("is_path"), py::arg("backend"),
        py::arg("flags"));
  m.def("cache_tool", &CacheTool, py::arg("argv"));
}
