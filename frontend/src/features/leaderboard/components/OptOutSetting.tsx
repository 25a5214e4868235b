import { useUser } from '../../../lib/auth/store';
import { useLeaderboardOptOut } from '../hooks/useLeaderboardOptOut';
import '../leaderboard.css';

// The opt-out checkbox of the Settings page: saved as soon as it changes.
export function OptOutSetting() {
  const user = useUser();
  const { hidden, saving, saved, failed, change } = useLeaderboardOptOut(user?.id);
  return (
    <div className="board-optout">
      <label>
        <input
          type="checkbox"
          checked={hidden === true}
          disabled={hidden === null || saving}
          onChange={(e) => void change(e.target.checked)}
        />
        Nu mă afișa în clasamente
      </label>
      <p className="muted">
        Numele tău de utilizator nu mai apare în niciun clasament, nici printre vecinii altcuiva. Tu îți vezi în continuare locul.
      </p>
      <p className="board-optout-status" role="status" aria-live="polite">
        {saving ? 'Se salvează...' : saved ? 'Salvat.' : failed ? 'Setarea nu a putut fi salvată.' : ''}
      </p>
    </div>
  );
}
