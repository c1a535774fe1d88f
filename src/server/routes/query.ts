// Turns validated query strings into store arguments.
import type { SortOrder } from '../../schema/common.js';
import { parseDateBound } from '../store/dates.js';
import type { DateRange, PageRequest } from '../store/types.js';

export const sortOrder = (...given: (string | undefined)[]): SortOrder =>
  given.find((g) => g !== undefined)?.toLowerCase() === 'desc' ? 'desc' : 'asc';

export const queryFlag = (value: string | undefined): boolean => value === 'true' || value === '1';

/** Validation has checked the format; here the bounds become inclusive instants. */
export function storedBounds(q: { startDate?: string; endDate?: string }): DateRange {
  return {
    start: q.startDate === undefined ? undefined : (parseDateBound(q.startDate, 'start') ?? undefined),
    end: q.endDate === undefined ? undefined : (parseDateBound(q.endDate, 'end') ?? undefined),
  };
}

export const pageOf = (q: { page?: number; limit?: number }): PageRequest => ({ page: q.page, limit: q.limit });
