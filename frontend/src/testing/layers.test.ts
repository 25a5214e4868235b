// @vitest-environment node
import { ESLint } from 'eslint';
import { describe, expect, test } from 'vitest';

// The layer rules of eslint.config.js (eslint-plugin-boundaries), run on snippets placed
// at real paths: each forbidden direction is reported, an allowed import is not.
const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

async function zoneErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: new URL(`../../${file}`, import.meta.url).pathname });
  return result.messages.filter((m) => m.ruleId === 'boundaries/dependencies').map((m) => m.message);
}

describe('layer rules', () => {
  test('a feature importing another feature is reported', async () => {
    const errors = await zoneErrors('src/features/review/components/Probe.tsx', "import { useCaseTree } from '../../dashboard/hooks/useCaseTree';\nexport const x = useCaseTree;\n");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('feature may not import feature');
  });

  test('a dynamic import of another feature is reported too', async () => {
    const errors = await zoneErrors('src/features/grile/components/Probe.tsx', "export const load = () => import('../../leaderboard/components/LeaderboardPage');\n");
    expect(errors).toHaveLength(1);
  });

  test('a shared component or lib importing a feature is reported', async () => {
    expect(await zoneErrors('src/components/ui/Probe.tsx', "import { loadTree } from '../../features/dashboard/api/cases';\nexport const x = loadTree;\n")).toHaveLength(1);
    expect(await zoneErrors('src/lib/probe.ts', "import { fetchTop } from '../features/leaderboard/api/leaderboard';\nexport const x = fetchTop;\n")).toHaveLength(1);
  });

  test('a feature importing the app layer is reported', async () => {
    expect(await zoneErrors('src/features/admin/components/Probe.tsx', "import { Header } from '../../../app/App';\nexport const x = Header;\n")).toHaveLength(1);
  });

  test('a component or hook using the Supabase client is reported; an api module may', async () => {
    const code = "import { supabase } from '../../../lib/supabase';\nexport const x = supabase;\n";
    const component = await zoneErrors('src/features/dashboard/components/Probe.tsx', code);
    expect(component).toHaveLength(1);
    expect(component[0]).toContain("Only a feature's api/ and lib/ use the Supabase client");
    expect(await zoneErrors('src/features/dashboard/hooks/useProbe.ts', code)).toHaveLength(1);
    expect(await zoneErrors('src/features/dashboard/api/probe.ts', code)).toEqual([]);
  });

  test('the allowed direction is not reported', async () => {
    const code = [
      "import { useCaseTree } from '../hooks/useCaseTree';",
      "import { Dialog } from '../../../components/ui/dialog';",
      "import { useIsAdmin } from '../../../lib/auth/store';",
      'export const x = [useCaseTree, Dialog, useIsAdmin];',
      '',
    ].join('\n');
    expect(await zoneErrors('src/features/dashboard/components/Probe.tsx', code)).toEqual([]);
    expect(await zoneErrors('src/app/routes/Probe.tsx', "import Reporting from '../../features/progress/components/Reporting';\nexport const x = Reporting;\n")).toEqual([]);
  });
});

describe('channel ownership', () => {
  const channelErrors = async (file: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: new URL(`../../${file}`, import.meta.url).pathname });
    return result.messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
  };
  const code = "import { supabase } from '../../../lib/supabase';\nconst ch = supabase().channel('x');\nexport const stop = () => supabase().removeChannel(ch);\n";
  test('a feature opening or removing a channel itself is reported', async () => {
    const errors = await channelErrors('src/features/dashboard/api/probe.ts', code);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toContain('only in src/lib/realtime.ts');
  });
  test('lib/realtime may', async () => {
    expect(await channelErrors('src/lib/realtime.ts', "import { supabase } from './supabase';\nexport const ch = supabase().channel('x');\n")).toEqual([]);
  });
});
