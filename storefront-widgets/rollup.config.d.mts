import type { RollupOptions } from 'rollup';

/** The widget types, each a folder under widgets/ with an index.tsx that exports `mount`. */
export declare const SDK_WIDGET_TYPES: readonly string[];
/** The rollup options that build dist/sdk (or `outDir`), the loader included. */
export declare function sdkConfig(options?: { outDir?: string }): RollupOptions;
/** All of dist/sdk, as an array for the root rollup.config.mjs to spread into its own. */
export declare function sdkConfigs(options?: { outDir?: string }): RollupOptions[];
declare const configs: RollupOptions[];
export default configs;
