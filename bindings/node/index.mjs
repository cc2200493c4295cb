// The ESM entry: the same objects as the CommonJS one (index.js).
import tocsin from './index.js';

export const { Engine, Timer, nextOccurrence, checkCalendar, version } = tocsin;
export default tocsin;
