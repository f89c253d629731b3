/**
 * core/config: read HuggingFace config.json and *.attn.yaml / *.attn.json profiles into
 * ModelSpec / Profile values with source ranges. Nothing here throws on bad input: every
 * problem comes back as a value with a code and a range.
 */
export * from './types';
export { CONFIG_NAME, FILE_GLOBS, PROFILE_SUFFIXES, SKIPPED_FOLDERS, SKIPPED_FOLDERS_GLOB, isConfigPath, isProfilePath, isSkippedFolder, readsAsProfile } from './fileKinds';
export { fileLocation, offsetToLineColumn, formatProblem } from './positions';
export { readModelConfig, readModelConfigTree, modelSpecFromTree, isModelConfigFile } from './model';
export { readProfile, readProfileTree, readProfileValues, withCrossKeyChecks, parseProfileText, readProfileOrConfigTree, parseProfileOrConfig, type ProfileHost } from './profile';
export { bareConfigProfileHint, defaultDtype, isBareConfig, profileFromModelConfig, PROFILE_DEFAULTS } from './profileDefaults';
export { resolvedProfileProblems } from './resolvedProfile';
export { closestMatch } from './suggest';
export { mixerNames } from './mamba';
export { readSweepBlock, sweepGpuNames, deviceGpuName, pointGpuHourUsd, sweepPriceProblems, treeGpuName, readSweepPoint, placePointNotes, sweepProblems, sweepAxisKeys, sweepPointTree, sweepSize, axisIndices, axisProblems, pointLabel, sweepTooBig, maxRateSloProblem, sweepAxisWarnings, jobReadsKey, keyReader, MAX_RATE_ARRIVAL_AXIS_TEXT, OFFERED_RATE_AXIS_TEXT, TRACE_AXIS_TEXT, MAX_SWEEP_POINTS, SWEEP_JOBS, SWEEP_POINTS_CHECKED, type SweepJob, type SweepAxis, type SweepBlock, type SlurmSettings, type SweepPointProfile, type PointNotes } from './sweep';
export { parseJsonTree, parseJsonTreeKeeping, type KeptNode, parseYamlTree, lineFeeds, numberLiteralNode, moveUnread, isUnread, EAGER_MEMBERS, type TreeStats, nodeAtPath, getProperty, toPlain, unsafeIntegerText, propertyAt, propertyWithKeyAt, propertyWithValueAt, type ValueNode, type PropertyNode, type ParsedTree, type FoundProperty } from './tree';
