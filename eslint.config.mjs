// ESLint for the whole monorepo (flat config), run by `npm run lint` and by
// .ci/run before the tests, with zero warnings allowed.
//
// - ESLint's recommended rules, and typescript-eslint with type information (the project service reads each
//   workspace's tsconfig): the rules that need types are the ones that catch
//   real bugs here — floating and misused promises, awaiting non-thenables.
// - React hooks and the Next.js rules for the portal.
// - Import order, so merges of parallel work do not fight over it.
import js from "@eslint/js";
import nextPlugin from "@next/eslint-plugin-next";
import importX from "eslint-plugin-import-x";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      "**/.next/**",
      "**/dist/**",
      "**/coverage/**",
      "**/test-results/**",
      "**/playwright-report/**",
      "**/.turbo/**",
      ".data/**",
      "packages/kafka-protocol/src/generated/**",
      "apps/portal/next-env.d.ts",
    ],
  },
  {
    files: ["**/*.{ts,tsx,mts}"],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "import-x": importX },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports", disallowTypeAnnotations: false }],
      // `void promise` marks a deliberate fire-and-forget; everything else is awaited or handled.
      "@typescript-eslint/no-floating-promises": ["error", { ignoreVoid: true }],
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
      // Protocol and catalog code converts bigint and numbers into messages on purpose.
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true, allowNullish: true, allowAny: false }],
      // Off: async functions without await are how this code base implements
      // promise-returning interfaces (kafkajs eachMessage, oidc-provider hooks,
      // storage adapters); the type-aware promise rules above catch the bugs.
      "@typescript-eslint/require-await": "off",
      // The untyped packages' ambient declarations (avsc, snappyjs) travel with
      // the files that import them, because other workspaces compile these
      // sources with their own tsconfig.
      "@typescript-eslint/triple-slash-reference": ["error", { path: "always", types: "prefer-import", lib: "always" }],
      // Passing on a caught error (typed unknown) is a rethrow, not a new throw of a non-Error.
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingUnknown: true }],
      "import-x/first": "error",
      "import-x/no-duplicates": "error",
      "import-x/order": [
        "error",
        {
          groups: ["builtin", "external", "internal", ["parent", "sibling", "index"]],
          pathGroups: [
            { pattern: "@kappa/**", group: "internal" },
            { pattern: "@/**", group: "internal", position: "after" },
          ],
          pathGroupsExcludedImportTypes: ["builtin"],
          "newlines-between": "never",
          alphabetize: { order: "asc", caseInsensitive: true },
        },
      ],
    },
  },
  {
    // Tests read JSON bodies (Response.json(), raw SQL rows) as `any` and
    // assert on them; the assertions are the type check there.
    files: ["**/*.test.ts", "**/test/**/*.ts", "apps/portal/e2e/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
    },
  },
  {
    files: ["apps/portal/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks, "@next/next": nextPlugin },
    settings: { next: { rootDir: "apps/portal" } },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...nextPlugin.configs.recommended.rules,
      ...nextPlugin.configs["core-web-vitals"].rules,
    },
  },
);
