// vulkan_spirv.cpp - reading a Vulkan SPIR-V module's interface (see the header): one pass over
// the module's declarations (everything before the first function), one over its functions (which
// of them touch memory outside the invocation), then each GLCompute entry point's block size,
// push-constant block and Workgroup variables.
#include "vulkan_spirv.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace infinirt::vulkan {
namespace {

// Opcodes, decorations and enumerants of the SPIR-V specification used here.
enum : uint32_t {
    OpName = 5,
    OpEntryPoint = 15,
    OpExecutionMode = 16,
    OpCapability = 17,
    OpTypeBool = 20,
    OpTypeInt = 21,
    OpTypeFloat = 22,
    OpTypeVector = 23,
    OpTypeMatrix = 24,
    OpTypeArray = 28,
    OpTypeRuntimeArray = 29,
    OpTypeStruct = 30,
    OpTypePointer = 32,
    OpConstantTrue = 41,
    OpConstantFalse = 42,
    OpConstant = 43,
    OpConstantComposite = 44,
    OpSpecConstantTrue = 48,
    OpSpecConstantFalse = 49,
    OpSpecConstant = 50,
    OpSpecConstantComposite = 51,
    OpSpecConstantOp = 52,
    OpTypeForwardPointer = 39,
    OpFunction = 54,
    OpFunctionEnd = 56,
    OpFunctionCall = 57,
    OpVariable = 59,
    OpDecorate = 71,
    OpMemberDecorate = 72,
    OpExecutionModeId = 331,
    OpTypeUntypedPointerKHR = 4417,
    OpUntypedVariableKHR = 4418,
};
enum : uint32_t {
    DecorationSpecId = 1,
    DecorationBlock = 2,
    DecorationArrayStride = 6,
    DecorationBuiltIn = 11,
    DecorationNonWritable = 24,
    DecorationOffset = 35,
};
constexpr uint32_t kExecutionModelGLCompute = 5;
constexpr uint32_t kModeLocalSize = 17;
constexpr uint32_t kModeLocalSizeId = 38;
constexpr uint32_t kBuiltInWorkgroupSize = 25;
constexpr uint32_t kStorageInput = 1;
constexpr uint32_t kStorageOutput = 3;
constexpr uint32_t kStorageWorkgroup = 4;
constexpr uint32_t kStoragePrivate = 6;
constexpr uint32_t kStorageFunction = 7;
constexpr uint32_t kStoragePushConstant = 9;
constexpr uint32_t kStoragePhysicalStorageBuffer = 5349;
constexpr int kMostTypeDepth = 64;

// Memory of the invocation, its workgroup or its launch: what a shader naming only these storage
// classes touches is gone when its dispatch ends.
bool invocationStorage(uint32_t storage) {
    return storage == kStorageInput || storage == kStorageOutput || storage == kStorageWorkgroup ||
           storage == kStoragePrivate || storage == kStorageFunction || storage == kStoragePushConstant;
}

enum class Kind : uint8_t { Other, Bool, Int, Float, Vector, Matrix, Array, RuntimeArray, Struct, Pointer };

struct Type {
    Kind kind = Kind::Other;
    uint32_t width = 0;   // Int, Float
    bool is_signed = false;
    uint32_t element = 0; // Vector, Matrix, Array, RuntimeArray: element type; Pointer: pointee
    uint32_t count = 0;   // Vector, Matrix: components / columns
    uint32_t length = 0;  // Array: the id of its length
    uint32_t storage = 0; // Pointer
    std::vector<uint32_t> members;
};

struct Constant {
    uint64_t value = 0;
    bool spec = false; // a specialization constant (or an operation on one): its value is not fixed
    std::vector<uint32_t> parts; // composites
};

struct EntryDecl {
    uint32_t function = 0;
    std::string name;
    std::vector<uint32_t> interface;
};

struct Layout {
    uint64_t size = 0;
    uint64_t align = 1;
    bool spec_sized = false;
};

class Reader {
  public:
    Reader(std::vector<uint32_t> words, std::string *why) : w_(std::move(words)), why_(why) {}

    bool read(SpirvModule *out) {
        out->version = w_[1];
        size_t at = 5;
        while (at < w_.size()) {
            const uint32_t count = w_[at] >> 16;
            const uint32_t op = w_[at] & 0xffffu;
            if (count == 0 || at + count > w_.size()) {
                return fail("instruction at word " + std::to_string(at) + " runs past the module's end");
            }
            if (op == OpFunction) {
                break;
            }
            if (!declare(op, &w_[at + 1], count - 1, out)) {
                return false;
            }
            at += count;
        }
        if (!scanFunctions(at)) {
            return false;
        }
        for (const auto &spec : spec_ids_) {
            const auto c = constant_types_.find(spec.first);
            uint32_t bytes = 4;
            if (c != constant_types_.end()) {
                const auto t = types_.find(c->second);
                if (t != types_.end() && t->second.width == 64) {
                    bytes = 8;
                }
            }
            out->spec_constants.push_back(SpirvSpecConstant{spec.second, bytes});
        }
        for (const EntryDecl &decl : entries_) {
            SpirvEntryPoint entry;
            if (!describe(decl, out->version, &entry)) {
                return false;
            }
            out->entries.push_back(std::move(entry));
        }
        return true;
    }

  private:
    bool fail(const std::string &what) {
        *why_ = what;
        return false;
    }

    static std::string literalString(const uint32_t *operands, uint32_t n, uint32_t *words_used) {
        std::string s;
        for (uint32_t i = 0; i < n; ++i) {
            for (int b = 0; b < 4; ++b) {
                const char c = static_cast<char>((operands[i] >> (8 * b)) & 0xffu);
                if (c == '\0') {
                    *words_used = i + 1;
                    return s;
                }
                s.push_back(c);
            }
        }
        *words_used = n;
        return s;
    }

    bool declare(uint32_t op, const uint32_t *o, uint32_t n, SpirvModule *out) {
        switch (op) {
        case OpCapability:
            if (n >= 1) {
                out->capabilities.push_back(o[0]);
            }
            return true;
        case OpEntryPoint: {
            if (n < 3) {
                return fail("an OpEntryPoint without a name");
            }
            if (o[0] != kExecutionModelGLCompute) {
                return true; // not a compute entry point: not a kernel
            }
            EntryDecl decl;
            decl.function = o[1];
            uint32_t used = 0;
            decl.name = literalString(o + 2, n - 2, &used);
            decl.interface.assign(o + 2 + used, o + n);
            entries_.push_back(std::move(decl));
            return true;
        }
        case OpExecutionMode:
        case OpExecutionModeId:
            if (n >= 5 && ((op == OpExecutionMode && o[1] == kModeLocalSize) ||
                           (op == OpExecutionModeId && o[1] == kModeLocalSizeId))) {
                LocalSize &size = local_sizes_[o[0]];
                size.by_id = op == OpExecutionModeId;
                std::copy(o + 2, o + 5, size.value);
            }
            return true;
        case OpDecorate:
            if (n >= 3 && o[1] == DecorationSpecId) {
                spec_ids_[o[0]] = o[2];
            } else if (n >= 3 && o[1] == DecorationArrayStride) {
                strides_[o[0]] = o[2];
            } else if (n >= 3 && o[1] == DecorationBuiltIn && o[2] == kBuiltInWorkgroupSize) {
                workgroup_sizes_.push_back(o[0]);
            } else if (n >= 2 && o[1] == DecorationBlock) {
                blocks_.insert(o[0]);
            }
            return true;
        case OpMemberDecorate:
            if (n >= 4 && o[2] == DecorationOffset) {
                offsets_[{o[0], o[1]}] = o[3];
            } else if (n >= 3 && o[2] == DecorationNonWritable) {
                non_writable_.insert({o[0], o[1]});
            }
            return true;
        case OpTypeBool:
            if (n >= 1) {
                types_[o[0]].kind = Kind::Bool;
            }
            return true;
        case OpTypeInt:
        case OpTypeFloat:
            if (n >= 2) {
                Type &t = types_[o[0]];
                t.kind = op == OpTypeInt ? Kind::Int : Kind::Float;
                t.width = o[1];
                t.is_signed = op == OpTypeInt && n >= 3 && o[2] != 0;
            }
            return true;
        case OpTypeVector:
        case OpTypeMatrix:
            if (n >= 3) {
                Type &t = types_[o[0]];
                t.kind = op == OpTypeVector ? Kind::Vector : Kind::Matrix;
                t.element = o[1];
                t.count = o[2];
            }
            return true;
        case OpTypeArray:
            if (n >= 3) {
                Type &t = types_[o[0]];
                t.kind = Kind::Array;
                t.element = o[1];
                t.length = o[2];
            }
            return true;
        case OpTypeRuntimeArray:
            if (n >= 2) {
                Type &t = types_[o[0]];
                t.kind = Kind::RuntimeArray;
                t.element = o[1];
            }
            return true;
        case OpTypeStruct:
            if (n >= 1) {
                Type &t = types_[o[0]];
                t.kind = Kind::Struct;
                t.members.assign(o + 1, o + n);
            }
            return true;
        case OpTypePointer:
            if (n >= 3) {
                Type &t = types_[o[0]];
                t.kind = Kind::Pointer;
                t.storage = o[1];
                t.element = o[2];
                if (!invocationStorage(o[1])) {
                    outside_.insert(o[0]);
                }
            }
            return true;
        case OpTypeForwardPointer:
        case OpTypeUntypedPointerKHR:
            if (n >= 2 && !invocationStorage(o[1])) {
                outside_.insert(o[0]);
            }
            return true;
        case OpUntypedVariableKHR:
            if (n >= 3 && !invocationStorage(o[2])) {
                outside_.insert(o[1]);
            }
            return true;
        case OpConstant:
        case OpSpecConstant:
            if (n >= 3) {
                Constant &c = constants_[o[1]];
                c.value = o[2] | (n >= 4 ? uint64_t{o[3]} << 32 : 0);
                c.spec = op == OpSpecConstant;
                constant_types_[o[1]] = o[0];
            }
            return true;
        case OpConstantTrue:
        case OpConstantFalse:
        case OpSpecConstantTrue:
        case OpSpecConstantFalse:
            if (n >= 2) {
                Constant &c = constants_[o[1]];
                c.value = op == OpConstantTrue || op == OpSpecConstantTrue;
                c.spec = op == OpSpecConstantTrue || op == OpSpecConstantFalse;
                constant_types_[o[1]] = o[0];
            }
            return true;
        case OpConstantComposite:
        case OpSpecConstantComposite:
            if (n >= 2) {
                Constant &c = constants_[o[1]];
                c.spec = op == OpSpecConstantComposite;
                c.parts.assign(o + 2, o + n);
            }
            return true;
        case OpSpecConstantOp:
            if (n >= 2) {
                constants_[o[1]].spec = true;
                constant_types_[o[1]] = o[0];
            }
            return true;
        case OpVariable:
            if (n >= 3 && (o[2] == kStoragePushConstant || o[2] == kStorageWorkgroup)) {
                variables_[o[1]] = Variable{o[0], o[2]};
            }
            if (n >= 3 && !invocationStorage(o[2])) {
                outside_.insert(o[1]);
            }
            return true;
        default: return true;
        }
    }

    // The functions from word `at` on: which of them name memory outside the invocation (an id of
    // outside_ among any instruction's operands: a pointer type or variable of such storage, which
    // every access to it, every conversion to a buffer reference and every load of one names), by
    // themselves or through the functions they call. An operand that is a literal equal to such an
    // id counts too: the answer errs towards touching.
    bool scanFunctions(size_t at) {
        struct Body {
            bool touches = false;
            std::vector<uint32_t> calls;
        };
        std::map<uint32_t, Body> bodies;
        Body *current = nullptr;
        while (at < w_.size()) {
            const uint32_t count = w_[at] >> 16;
            const uint32_t op = w_[at] & 0xffffu;
            if (count == 0 || at + count > w_.size()) {
                return fail("instruction at word " + std::to_string(at) + " runs past the module's end");
            }
            if (op == OpFunction && count >= 3) {
                current = &bodies[w_[at + 2]];
            } else if (op == OpFunctionEnd) {
                current = nullptr;
            } else if (current != nullptr && op == OpFunctionCall && count >= 4) {
                current->calls.push_back(w_[at + 3]);
            }
            for (uint32_t k = 1; current != nullptr && !current->touches && k < count; ++k) {
                current->touches = outside_.count(w_[at + k]) != 0;
            }
            at += count;
        }
        // Through calls: at most one pass per function until nothing changes.
        for (bool changed = true; changed;) {
            changed = false;
            for (auto &[id, body] : bodies) {
                for (uint32_t callee : body.calls) {
                    const auto found = bodies.find(callee);
                    if (!body.touches && (found == bodies.end() || found->second.touches)) {
                        body.touches = changed = true;
                    }
                }
            }
        }
        for (const auto &[id, body] : bodies) {
            if (!body.touches) {
                invocation_only_.insert(id);
            }
        }
        return true;
    }

    const Type *type(uint32_t id) const {
        const auto found = types_.find(id);
        return found == types_.end() ? nullptr : &found->second;
    }

    // The std430 size and alignment of type `id` (its ArrayStride and member Offsets where the
    // module declares them). False for a type this reader does not know.
    bool layout(uint32_t id, Layout *out, int depth = 0) const {
        const Type *t = type(id);
        if (t == nullptr || depth > kMostTypeDepth) {
            return false;
        }
        switch (t->kind) {
        case Kind::Bool: *out = Layout{4, 4, false}; return true;
        case Kind::Int:
        case Kind::Float:
            if (t->width == 0 || t->width % 8 != 0 || t->width > 64) {
                return false;
            }
            *out = Layout{t->width / 8, t->width / 8, false};
            return true;
        case Kind::Vector:
        case Kind::Matrix: {
            Layout e;
            if (!layout(t->element, &e, depth + 1) || t->count == 0 || t->count > 16) {
                return false;
            }
            if (t->kind == Kind::Vector) {
                const uint64_t align = e.size * (t->count == 2 ? 2 : t->count <= 4 ? 4 : t->count);
                *out = Layout{e.size * t->count, align, false};
            } else { // columns of the column vector's aligned size
                const uint64_t column = std::max(e.size, e.align);
                *out = Layout{column * t->count, e.align, false};
            }
            return true;
        }
        case Kind::Array: {
            Layout e;
            const auto length = constants_.find(t->length);
            if (!layout(t->element, &e, depth + 1) || length == constants_.end()) {
                return false;
            }
            const auto stride = strides_.find(id);
            const uint64_t step = stride != strides_.end() ? stride->second : (e.size + e.align - 1) / e.align * e.align;
            const uint64_t count = length->second.spec ? 0 : length->second.value;
            if (count > (uint64_t{1} << 32)) {
                return false;
            }
            *out = Layout{step * count, e.align, length->second.spec || e.spec_sized};
            return true;
        }
        case Kind::RuntimeArray: {
            Layout e;
            if (!layout(t->element, &e, depth + 1)) {
                return false;
            }
            *out = Layout{0, e.align, false};
            return true;
        }
        case Kind::Struct: {
            Layout s;
            uint64_t running = 0;
            for (uint32_t i = 0; i < t->members.size(); ++i) {
                Layout m;
                if (!layout(t->members[i], &m, depth + 1)) {
                    return false;
                }
                const auto offset = offsets_.find({id, i});
                const uint64_t at = offset != offsets_.end() ? offset->second : (running + m.align - 1) / m.align * m.align;
                running = at + m.size;
                s.size = std::max(s.size, running);
                s.align = std::max(s.align, m.align);
                s.spec_sized = s.spec_sized || m.spec_sized;
            }
            *out = s;
            return true;
        }
        case Kind::Pointer: *out = Layout{8, 8, false}; return true;
        case Kind::Other: break;
        }
        return false;
    }

    std::string typeName(uint32_t id, const Layout &l) const {
        const Type *t = type(id);
        if (t == nullptr) {
            return "an unknown type";
        }
        switch (t->kind) {
        case Kind::Int: return std::string(t->is_signed ? "int" : "uint") + std::to_string(t->width);
        case Kind::Float: return "float" + std::to_string(t->width);
        case Kind::Pointer: return "a buffer reference";
        case Kind::Vector: return "a vector of " + std::to_string(t->count);
        case Kind::Struct: return "a struct of " + std::to_string(l.size) + " bytes";
        case Kind::Array: return "an array of " + std::to_string(l.size) + " bytes";
        default: return "a value of " + std::to_string(l.size) + " bytes";
        }
    }

    // The members of struct `id` as parameters.
    bool params(uint32_t id, const std::string &entry, std::vector<SpirvParam> *out) {
        const Type *t = type(id);
        for (uint32_t i = 0; i < t->members.size(); ++i) {
            const auto offset = offsets_.find({id, i});
            Layout l;
            if (offset == offsets_.end() || !layout(t->members[i], &l)) {
                return fail("entry point \"" + entry + "\": argument " + std::to_string(i) +
                            " has no Offset or a type infinirt cannot size");
            }
            const Type *m = type(t->members[i]);
            SpirvParam p;
            p.offset = offset->second;
            p.size = static_cast<uint32_t>(l.size);
            p.padded = static_cast<uint32_t>((l.size + l.align - 1) / l.align * l.align);
            const Type *component = m->kind == Kind::Vector ? type(m->element) : nullptr;
            p.address = (m->kind == Kind::Pointer && m->storage == kStoragePhysicalStorageBuffer) ||
                        (m->kind == Kind::Int && m->width == 64) ||
                        (m->kind == Kind::Vector && m->count == 2 && component != nullptr &&
                         component->kind == Kind::Int && component->width == 32);
            p.integer = m->kind == Kind::Int && (m->width == 32 || m->width == 64);
            p.type = typeName(t->members[i], l);
            out->push_back(std::move(p));
        }
        return true;
    }

    // Whether struct `id` is an arguments' block: a Block, every member read-only, no runtime array.
    bool argumentsBlock(uint32_t id) const {
        const Type *t = type(id);
        if (t == nullptr || t->kind != Kind::Struct || t->members.empty() || blocks_.count(id) == 0) {
            return false;
        }
        for (uint32_t i = 0; i < t->members.size(); ++i) {
            const Type *m = type(t->members[i]);
            if (m == nullptr || m->kind == Kind::RuntimeArray || non_writable_.count({id, i}) == 0) {
                return false;
            }
        }
        return true;
    }

    bool describe(const EntryDecl &decl, uint32_t version, SpirvEntryPoint *e) {
        e->name = decl.name;
        e->touches_memory = invocation_only_.count(decl.function) == 0;
        const std::string where = "entry point \"" + decl.name + "\"";
        // The block size: LocalSize / LocalSizeId, then a WorkgroupSize built-in, which overrides both.
        const auto mode = local_sizes_.find(decl.function);
        if (mode != local_sizes_.end()) {
            for (int d = 0; d < 3; ++d) {
                if (!mode->second.by_id) {
                    e->fixed_size[d] = mode->second.value[d];
                } else if (!dimension(mode->second.value[d], d, e)) {
                    return fail(where + ": LocalSizeId names no integer constant");
                }
            }
        }
        for (size_t w = 0; w < workgroup_sizes_.size(); ++w) {
            const auto composite = constants_.find(workgroup_sizes_[w]);
            if (composite == constants_.end() || composite->second.parts.size() != 3) {
                return fail(where + ": a WorkgroupSize built-in that is no 3-component constant");
            }
            SpirvEntryPoint sized;
            for (int d = 0; d < 3; ++d) {
                if (!dimension(composite->second.parts[d], d, &sized)) {
                    return fail(where + ": a WorkgroupSize built-in with a component that is no integer constant");
                }
            }
            bool agree = true;
            for (int d = 0; d < 3; ++d) {
                agree = agree && sized.spec_id[d] == e->spec_id[d] &&
                        (sized.spec_id[d] >= 0 || sized.fixed_size[d] == e->fixed_size[d]);
            }
            if (w > 0 && !agree) {
                return fail("the module's WorkgroupSize built-ins disagree (a linked module whose shaders fix "
                            "different blocks: size them with local_size_x_id = 0 etc. instead)");
            }
            std::copy(sized.spec_id, sized.spec_id + 3, e->spec_id);
            std::copy(sized.fixed_size, sized.fixed_size + 3, e->fixed_size);
        }
        // Its variables: the interface lists them from SPIR-V 1.4; before, every module-scope one.
        std::vector<uint32_t> ids;
        if (version >= 0x00010400) {
            ids = decl.interface;
        } else {
            for (const auto &v : variables_) {
                ids.push_back(v.first);
            }
        }
        uint32_t push = 0;
        for (uint32_t id : ids) {
            const auto v = variables_.find(id);
            if (v == variables_.end()) {
                continue;
            }
            const Type *pointer = type(v->second.type);
            if (pointer == nullptr || pointer->kind != Kind::Pointer) {
                return fail(where + ": a variable whose type is no pointer");
            }
            if (v->second.storage == kStoragePushConstant) {
                if (push != 0) {
                    return fail(where + ": more than one push-constant block (compile for SPIR-V 1.4 or later, "
                                        "where each entry point lists its own)");
                }
                push = pointer->element;
            } else {
                Layout l;
                if (!layout(pointer->element, &l)) {
                    return fail(where + ": a Workgroup variable of a type infinirt cannot size");
                }
                if (!l.spec_sized) {
                    e->static_shared += l.size;
                }
            }
        }
        if (push == 0) {
            return true; // no arguments
        }
        const Type *block = type(push);
        Layout whole;
        if (block == nullptr || block->kind != Kind::Struct || !layout(push, &whole)) {
            return fail(where + ": its push-constant block is no struct infinirt can size");
        }
        e->push_bytes = static_cast<uint32_t>((whole.size + 3) / 4 * 4);
        if (block->members.size() == 1) {
            const Type *only = type(block->members[0]);
            if (only != nullptr && only->kind == Kind::Pointer && only->storage == kStoragePhysicalStorageBuffer &&
                argumentsBlock(only->element)) {
                Layout arguments;
                if (!layout(only->element, &arguments)) {
                    return fail(where + ": its arguments' block is no struct infinirt can size");
                }
                e->indirect = true;
                e->address_offset = offsets_.count({push, 0}) ? offsets_[{push, 0}] : 0;
                e->arguments_bytes = static_cast<uint32_t>((arguments.size + 15) / 16 * 16);
                return params(only->element, decl.name, &e->params);
            }
        }
        return params(push, decl.name, &e->params);
    }

    // Block dimension `d` from constant `id`: fixed, or sized by its specialization constant.
    bool dimension(uint32_t id, int d, SpirvEntryPoint *e) const {
        const auto c = constants_.find(id);
        if (c == constants_.end() || !c->second.parts.empty()) {
            return false;
        }
        const auto spec = spec_ids_.find(id);
        if (c->second.spec && spec != spec_ids_.end()) {
            e->spec_id[d] = spec->second;
            e->fixed_size[d] = static_cast<uint32_t>(c->second.value);
        } else if (!c->second.spec) {
            e->spec_id[d] = -1;
            e->fixed_size[d] = static_cast<uint32_t>(c->second.value);
        } else {
            return false; // an operation on specialization constants: not a size the launch can set
        }
        return true;
    }

    struct LocalSize {
        bool by_id = false;
        uint32_t value[3] = {1, 1, 1};
    };
    struct Variable {
        uint32_t type = 0;
        uint32_t storage = 0;
    };

    std::vector<uint32_t> w_;
    std::string *why_;
    std::vector<EntryDecl> entries_;
    std::map<uint32_t, LocalSize> local_sizes_;
    std::map<uint32_t, uint32_t> spec_ids_;       // constant id -> SpecId
    std::map<uint32_t, uint32_t> constant_types_; // constant id -> its type
    std::map<uint32_t, uint32_t> strides_;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> offsets_;
    std::set<std::pair<uint32_t, uint32_t>> non_writable_;
    std::set<uint32_t> blocks_;
    std::vector<uint32_t> workgroup_sizes_; // linked modules may hold one per entry point: they must agree
    std::map<uint32_t, Type> types_;
    std::map<uint32_t, Constant> constants_;
    std::map<uint32_t, Variable> variables_;
    std::set<uint32_t> outside_;         // pointer types and variables of storage outside the invocation
    std::set<uint32_t> invocation_only_; // functions that touch no such memory, nor do their callees
};

} // namespace

bool readSpirv(const void *bytes, size_t size, SpirvModule *out, std::string *why) {
    if (size < 20 || size % 4 != 0) {
        *why = "SPIR-V is a whole number of 4-byte words, at least 5 (the header); this image has " +
               std::to_string(size) + " bytes";
        return false;
    }
    std::vector<uint32_t> words(size / 4);
    std::memcpy(words.data(), bytes, size);
    if (words[0] == __builtin_bswap32(0x07230203u)) {
        for (uint32_t &w : words) {
            w = __builtin_bswap32(w);
        }
    } else if (words[0] != 0x07230203u) {
        *why = "no SPIR-V magic number";
        return false;
    }
    *out = SpirvModule{};
    return Reader(std::move(words), why).read(out);
}

const char *capabilityName(uint32_t capability) {
    switch (capability) {
    case 9: return "Float16";
    case 10: return "Float64";
    case 11: return "Int64";
    case 12: return "Int64Atomics";
    case 22: return "Int16";
    case 39: return "Int8";
    case 61: return "GroupNonUniform";
    case 62: return "GroupNonUniformVote";
    case 63: return "GroupNonUniformArithmetic";
    case 64: return "GroupNonUniformBallot";
    case 65: return "GroupNonUniformShuffle";
    case 66: return "GroupNonUniformShuffleRelative";
    case 67: return "GroupNonUniformClustered";
    case 68: return "GroupNonUniformQuad";
    case 4433: return "StorageBuffer16BitAccess";
    case 4434: return "UniformAndStorageBuffer16BitAccess";
    case 4435: return "StoragePushConstant16";
    case 4448: return "StorageBuffer8BitAccess";
    case 4449: return "UniformAndStorageBuffer8BitAccess";
    case 4450: return "StoragePushConstant8";
    case 5345: return "VulkanMemoryModel";
    case 5346: return "VulkanMemoryModelDeviceScope";
    default: return nullptr;
    }
}

} // namespace infinirt::vulkan
