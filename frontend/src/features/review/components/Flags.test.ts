import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { FLAG_LABELS, flagLabel } from './Flags';

describe('flag reasons', () => {
  test('every reason the database allows has a Romanian label', () => {
    const sql = fs.readFileSync(path.resolve(__dirname, '../../../../../sql/app/028_submission_flags.sql'), 'utf8');
    const allowed = /reason in \(([^)]*)\)/.exec(sql)![1].match(/'[a-z_]+'/g)!.map((r) => r.slice(1, -1));
    expect(Object.keys(FLAG_LABELS).sort()).toEqual(allowed.sort());
    expect(flagLabel('high_score_short_text')).toBe('Cel puțin 90 de puncte pentru un text sub 250 de cuvinte');
  });
});
