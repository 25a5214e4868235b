// "1 punct", "2 puncte" … "19 puncte", "20 de puncte", "101 puncte", "120 de puncte": Romanian
// puts "de" between a number and its noun when the number's last two digits are 00 or 20-99.
export function pointsLabel(n: number): string {
  if (n === 1) return '1 punct';
  const lastTwo = Math.abs(n) % 100;
  return n !== 0 && (lastTwo === 0 || lastTwo >= 20) ? `${n} de puncte` : `${n} puncte`;
}
