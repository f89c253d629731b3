/**
 * core/vllmlog: a vLLM start-up log read into the figures its memory profiling printed, and
 * compared term by term with the estimate for the same model and settings.
 */
export { parseVllmLog, type LogFigure, type RankedFigure, type RankedKey, type VllmLog, type VllmLogFigures, type VllmLogSettings } from './parse';
export { compareVllmLog, type ComparisonRow, type LogComparison } from './compare';
export { GIVE_STARTUP, missingKvNote, stopNote } from './notes';
export { formatComparisonMarkdown, formatComparisonText, logFigureLines, rankNotes, UNREAD_WHY, unreadLine, unreadLines } from './report';
