export function App() {
  return <main>Casus v0.1</main>;
}
