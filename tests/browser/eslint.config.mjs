// The lint of the view's JavaScript (inst/htmlwidgets/), run by
// tests/testthat/test-view-browser.R: eslint's recommended rules for plain
// browser scripts (ES2019, no modules, no build step). The test tools
// (tests/js/*.mjs, tests/browser/driver.mjs) are node modules, whose
// functions sent to the page see the browser's globals.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["**/*.js"],
    languageOptions: {
      ecmaVersion: 2019,
      sourceType: "script",
      globals: { ...globals.browser, HTMLWidgets: "readonly", ProfileView: "writable" },
    },
    rules: {
      "no-var": "error",
      "prefer-const": "error",
      eqeqeq: "error",
      "no-implicit-globals": "error",
    },
  },
  {
    files: ["**/*.mjs"],
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "module",
      globals: { ...globals.node, ...globals.browser, ProfileView: "readonly" },
    },
  },
];
