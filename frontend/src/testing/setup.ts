// Shared setup for unit tests (jsdom).
export {};
