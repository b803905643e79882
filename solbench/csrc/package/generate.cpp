// solgen generate: validate options, bind to a definition, build, write.
#include "package/generate.h"

#include "package/definition.h"
#include "package/packager.h"

#include <algorithm>
#include <filesystem>

namespace solbench {

namespace {

void print(std::ostream& err, const Failure& f) {
    for (const Diagnostic& d : f.diagnostics)
        err << render_short(f.file, d) << "\n";
}

} // namespace

cli::Exit generate(const OpDescription& op, const GenerateOptions& opts, std::ostream& out,
                   std::ostream& err) {
    // Usage: targets and arch.
    package::BundleOptions options;
    options.targets.clear();
    for (std::string t : opts.targets) {
        std::transform(t.begin(), t.end(), t.begin(),
                       [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
        if (t != "B200" && t != "LOCAL") {
            err << "solgen: error: unknown target hardware '" << t << "' (B200 or LOCAL)\n";
            return cli::Exit::Usage;
        }
        if (std::find(options.targets.begin(), options.targets.end(), t) == options.targets.end())
            options.targets.push_back(t);
    }
    if (options.targets.empty()) {
        err << "solgen: error: no target hardware given\n";
        return cli::Exit::Usage;
    }
    if (opts.arch && !package::gencode_flag(*opts.arch)) {
        err << "solgen: error: '" << *opts.arch << "' is not an architecture (e.g. sm_100a)\n";
        return cli::Exit::Usage;
    }
    if (opts.out_dir.empty()) {
        err << "solgen: error: no output directory given\n";
        return cli::Exit::Usage;
    }
    options.arch = opts.arch;
    options.author = opts.author;
    options.destination_passing = opts.destination_passing;
    options.source_file_name = std::filesystem::path(opts.source_file_name).filename().string();

    // Bind to the benchmark's definition, when there is one.
    OpDescription bound = op;
    std::optional<package::Definition> def;
    if (opts.definition_path) {
        auto loaded = package::load_definition(*opts.definition_path);
        if (auto* failure = std::get_if<Failure>(&loaded)) {
            print(err, *failure);
            return cli::Exit::Rejected;
        }
        def = std::get<package::Definition>(std::move(loaded));
        auto result = package::bind(op, *def);
        if (auto* failure = std::get_if<Failure>(&result)) {
            print(err, *failure);
            return cli::Exit::Rejected;
        }
        bound = std::get<OpDescription>(std::move(result));
    }
    const std::string def_name = def ? def->name : bound.ir.name;
    options.name = opts.name ? *opts.name : def_name + "_solgen";

    auto bundle = package::build_bundle(bound, options, def ? &*def : nullptr);
    if (auto* failure = std::get_if<Failure>(&bundle)) {
        print(err, *failure);
        return cli::Exit::Rejected;
    }
    const auto& files = std::get<package::BundleFiles>(bundle);
    if (auto error = package::write_bundle(opts.out_dir, files, opts.force)) {
        err << *error << "\n";
        return cli::Exit::Rejected;
    }
    out << "wrote " << opts.out_dir << ": " << options.name << " for " << def_name << " ("
        << files.size() << " files)\n";
    return cli::Exit::Ok;
}

} // namespace solbench
