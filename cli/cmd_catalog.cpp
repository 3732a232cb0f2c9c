// kopt catalog list | show ID: the methods kopt knows (data/methods.toml), their triggers,
// expected gain, risks, worked example and SASS signature.
#include <nlohmann/json.hpp>

#include <iostream>

#include "command.hpp"
#include "kopt/catalog/catalog_view.hpp"

namespace kopt::cli {

Command catalog_command() {
  return {"catalog", "The method catalog: kopt catalog list | kopt catalog show ID", [](CLI::App& app) {
            auto id = std::make_shared<std::string>();
            auto json = std::make_shared<bool>(false);
            CLI::App* list = app.add_subcommand("list", "Every method, by axis and priority");
            CLI::App* show = app.add_subcommand("show", "Everything the catalog says about one method");
            show->add_option("ID", *id, "A method id, e.g. memory.coalescing")->required();
            app.add_flag("--json", *json, "Print one JSON document (kopt.catalog/1)");
            list->add_flag("--json", *json, "Print one JSON document (kopt.catalog/1)");
            show->add_flag("--json", *json, "Print one JSON document (kopt.catalog/1)");
            app.require_subcommand(1);
            return [id, json, show] {
              const catalog::MethodCatalog methods = catalog::load_method_catalog();
              if (show->parsed()) {
                const catalog::SignatureTable signatures = catalog::load_sass_signatures();
                if (*json) std::cout << catalog::method_json(methods, signatures, *id).dump(2) << "\n";
                else std::cout << catalog::format_method(methods, signatures, *id);
              } else if (*json) {
                std::cout << catalog::catalog_list_json(methods).dump(2) << "\n";
              } else {
                std::cout << catalog::format_catalog_list(methods);
              }
              return 0;
            };
          }};
}

}  // namespace kopt::cli
