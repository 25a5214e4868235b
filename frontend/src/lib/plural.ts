// Romanian number agreement: "1 cerere", "2 cereri", "19 cereri", "20 de cereri", "101 cereri",
// "120 de cereri". From 20 on, "de" comes before the noun unless the number ends in 01–19.
export function countOf(n: number, one: string, many: string): string {
  if (n === 1) return `1 ${one}`;
  const rest = n % 100;
  return n >= 20 && !(rest >= 1 && rest <= 19) ? `${n} de ${many}` : `${n} ${many}`;
}
