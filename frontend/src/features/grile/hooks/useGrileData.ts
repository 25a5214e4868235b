import { useCallback, useEffect, useState } from 'react';
import { browserNow } from './usePractice';
import { dueCount, fetchCategories, progress, type Category, type CategoryProgress } from '../api/grile';

export function useCategories(): Category[] {
  const [cats, setCats] = useState<Category[]>([]);
  useEffect(() => {
    fetchCategories().then(setCats).catch(() => setCats([]));
  }, []);
  return cats;
}

// How many grile are due now (the browser's clock); reload() after a session.
export function useDueCount(now: () => Date = browserNow) {
  const [n, setN] = useState<number | null>(null);
  const reload = useCallback(() => {
    dueCount(now()).then(setN).catch(() => setN(0));
  }, [now]);
  useEffect(reload, [reload]);
  return { due: n, reload };
}

export function useGrileProgress() {
  const [rows, setRows] = useState<CategoryProgress[] | null>(null);
  useEffect(() => {
    progress().then(setRows).catch(() => setRows([]));
  }, []);
  return rows;
}
