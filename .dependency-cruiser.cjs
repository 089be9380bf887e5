/**
 * The import side of the module contract (docs/modules.md), checked by `npm test`:
 * - core (app/core, providers/) imports no module;
 * - a module imports another module only through the file that module declares public
 *   (app/modules/<module>/public.ts), never its services, models or tables directly.
 * Type-only imports count: a type reaching into another module couples them just the same.
 */
module.exports = {
  forbidden: [
    {
      name: 'core-imports-no-module',
      comment: 'Core is the shared kernel: a module registers with it, it never names a module.',
      severity: 'error',
      from: { path: '^(app/core|providers)/' },
      to: { path: '^app/modules/' },
    },
    {
      name: 'modules-meet-through-public-files',
      comment: "Import another module only through its public.ts: what it exports there is its promise to others.",
      severity: 'error',
      from: { path: '^app/modules/([^/]+)/' },
      to: { path: '^app/modules/', pathNot: ['^app/modules/$1/', '^app/modules/[^/]+/public[.]ts$'] },
    },
    {
      name: 'config-meets-modules-through-public-files',
      comment: "Configuration is read by core's providers: it names a module only through its public.ts (config/auth.ts is the auth module's own setting of @adonisjs/auth, which loads its User model).",
      severity: 'error',
      from: { path: '^config/', pathNot: '^config/auth[.]ts$' },
      to: { path: '^app/modules/', pathNot: '^app/modules/[^/]+/public[.]ts$' },
    },
    {
      name: 'no-unresolvable-imports',
      comment: 'An import the checker cannot follow would hide a boundary crossing.',
      severity: 'error',
      from: { path: '^(app|providers|config)/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|build|dashboard)/' },
    tsPreCompilationDeps: true,
    // tsconfig.boundaries.json maps the package.json `imports` aliases (#core/*, #modules/*),
    // which name the compiled .js files, to the .ts sources.
    tsConfig: { fileName: 'tsconfig.boundaries.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'node', 'default'] },
  },
}
