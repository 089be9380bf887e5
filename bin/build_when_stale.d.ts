/** Types of bin/build_when_stale.js, plain JavaScript run by `npm start` before anything is compiled. */
export declare const STAMP: string
export declare const OUTPUTS: string[]
export declare function sourceFiles(root: string): string[]
export declare function sourcesDigest(root: string): string
export declare function buildState(root: string): { fresh: boolean; reason: string }
export declare function writeStamp(root: string, digest: string): void
export declare function build(root: string, steps?: Array<[string, string[], ((output: string) => string)?]>): boolean
export declare function withoutDeployInstructions(output: string): string
