// Command casus is the whole Casus backend in one binary: auth, data API, realtime,
// AI gateway and the web app.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"casus/server/internal/aigw/aitest"
	"casus/server/internal/app"
	"casus/server/internal/authn"
	"casus/server/internal/config"
	"casus/server/internal/db"
	"casus/server/internal/seed"
)

const usage = `usage: casus <command> [flags]

commands:
  serve [--no-migrate] [--seed]
                         migrate (unless told not to), optionally seed, and serve
  migrate                apply pending database migrations
  seed                   load codes, catalogues and curriculum cases (idempotent)
  keys                   print ANON_KEY and SERVICE_ROLE_KEY for the configured secret
  fake-ai [--addr A]     run the scripted fake Messages API (tests and demos)
`

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "casus:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("no command given")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cmd, args := os.Args[1], os.Args[2:]
	if cmd == "fake-ai" {
		return aitest.Main(ctx, args)
	}
	if cmd == "help" || cmd == "-h" || cmd == "--help" {
		fmt.Print(usage)
		return nil
	}
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	switch cmd {
	case "serve":
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		noMigrate := fs.Bool("no-migrate", false, "do not apply migrations on start")
		withSeed := fs.Bool("seed", false, "load the seed content before serving")
		if err := fs.Parse(args); err != nil {
			return err
		}
		log.Info("starting", "config", cfg)
		opts := app.Options{NoMigrate: *noMigrate}
		if *withSeed && cfg.StudyApp() {
			opts.BeforeServe = seed.Run
		}
		return app.Run(ctx, cfg, log, opts)
	case "migrate":
		url, stopCluster, err := db.Bring(ctx, log, cfg.DatabaseURL, cfg.DatabaseURLSet, cfg.StateDir)
		if err != nil {
			return err
		}
		defer stopCluster()
		v, err := db.Migrate(ctx, url, cfg.StudyApp())
		if err != nil {
			return err
		}
		fmt.Printf("database migrated: %s\n", v)
		return nil
	case "seed":
		if !cfg.StudyApp() {
			fmt.Println("CASUS_APP=none: no study content to seed")
			return nil
		}
		d, stopAll, err := app.Prepare(ctx, cfg, log, true)
		if err != nil {
			return err
		}
		defer stopAll()
		return seed.Run(ctx, d)
	case "keys":
		k, err := authn.NewKeys(cfg.JWTSecret)
		if err != nil {
			return err
		}
		fmt.Printf("ANON_KEY=%s\nSERVICE_ROLE_KEY=%s\n", k.AnonKey, k.ServiceKey)
		return nil
	}
	fmt.Fprint(os.Stderr, usage)
	return fmt.Errorf("unknown command %q", cmd)
}
