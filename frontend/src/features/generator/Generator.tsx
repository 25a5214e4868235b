import { Link } from 'react-router-dom';
import { aiEnabled } from '../../lib/supabase';

// The five-step generator needs the AI gateway; until it lands the page says so plainly.
export default function Generator() {
  return (
    <main className="page">
      <section className="card">
        <Link to="/dashboard">← Înapoi la dashboard</Link>
        <h1>Generator de cazuri</h1>
        <p>Pașii: Domeniu, Categorii, Articole, Context, Configurare. Generarea durează aproximativ 10-30 de secunde.</p>
        <p className="banner">
          {aiEnabled()
            ? 'Generatorul de cazuri nu este încă disponibil în această versiune.'
            : 'Funcțiile AI sunt oprite pe acest server: generatorul are nevoie de un furnizor AI configurat (vezi README).'}
        </p>
      </section>
    </main>
  );
}
