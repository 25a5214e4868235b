package db

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
)

// PrivateCluster is a PostgreSQL cluster the server started itself under the state
// directory, reachable only over a unix socket, for machines with the PostgreSQL
// binaries but no running server.
type PrivateCluster struct {
	DataDir, SocketDir, BinDir string
	Port                       int
	log                        *slog.Logger
	cred                       *syscall.Credential
	stopOnce                   sync.Once
}

// URL is the connection string of a database in the private cluster.
func (c *PrivateCluster) URL(database string) string {
	q := url.Values{"host": {c.SocketDir}, "port": {strconv.Itoa(c.Port)}, "sslmode": {"disable"}}
	return "postgres://postgres@/" + database + "?" + q.Encode()
}

// FindPostgresBin returns the directory holding initdb and pg_ctl, preferring the
// newest Debian-style /usr/lib/postgresql/<v>/bin.
func FindPostgresBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
}

// StartPrivateCluster initialises (once) and starts a cluster under stateDir/pg.
func StartPrivateCluster(ctx context.Context, log *slog.Logger, stateDir string) (*PrivateCluster, error) {
	return StartPrivateClusterWith(ctx, log, stateDir, nil)
}

// clusterSettings are the private cluster's settings beyond connections. Realtime reads
// changes by logical replication (one slot per database); a slot nobody reads may pin at
// most max_slot_wal_keep_size of WAL before PostgreSQL invalidates it.
var clusterSettings = map[string]string{
	"wal_level": "logical", "max_replication_slots": "16", "max_wal_senders": "16", "max_slot_wal_keep_size": "1GB",
}

// StartPrivateClusterWith is StartPrivateCluster with settings overriding clusterSettings
// (tests use it to run a server without logical decoding).
func StartPrivateClusterWith(ctx context.Context, log *slog.Logger, stateDir string, settings map[string]string) (*PrivateCluster, error) {
	bin, err := FindPostgresBin()
	if err != nil {
		return nil, err
	}
	root, err := filepath.Abs(filepath.Join(stateDir, "pg"))
	if err != nil {
		return nil, err
	}
	c := &PrivateCluster{DataDir: filepath.Join(root, "data"), SocketDir: filepath.Join(root, "sock"), BinDir: bin, Port: 5432, log: log}
	// PostgreSQL refuses to run as root; run it as the system's postgres user then.
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, errors.New("running as root and no 'postgres' system user to own a private cluster")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	for _, d := range []string{root, c.SocketDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
		if c.cred != nil {
			if err := os.Chown(d, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
				return nil, err
			}
		}
	}
	if _, err := os.Stat(filepath.Join(c.DataDir, "PG_VERSION")); err != nil {
		log.Info("initialising private PostgreSQL cluster", "dir", c.DataDir)
		if err := c.run(ctx, "initdb", "-D", c.DataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"); err != nil {
			return nil, fmt.Errorf("initdb: %w", err)
		}
	}
	opts := fmt.Sprintf("-c listen_addresses='' -c unix_socket_directories='%s' -p %d", c.SocketDir, c.Port)
	names := make([]string, 0, len(clusterSettings))
	for name := range clusterSettings {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		value := clusterSettings[name]
		if v, ok := settings[name]; ok {
			value = v
		}
		opts += fmt.Sprintf(" -c %s=%s", name, value)
	}
	if err := c.run(ctx, "pg_ctl", "-D", c.DataDir, "-o", opts, "-l", filepath.Join(root, "server.log"), "-w", "start"); err != nil {
		return nil, fmt.Errorf("pg_ctl start: %w (see %s)", err, filepath.Join(root, "server.log"))
	}
	log.Info("no PostgreSQL server was reachable: started a private cluster; it stops when the server exits", "socket", c.SocketDir)
	return c, nil
}

// Stop shuts the cluster down (fast mode: open transactions are rolled back).
// Calling it again does nothing.
func (c *PrivateCluster) Stop() {
	c.stopOnce.Do(func() {
		if err := c.run(context.Background(), "pg_ctl", "-D", c.DataDir, "-m", "fast", "-w", "stop"); err != nil {
			c.log.Error("stopping private cluster", "err", err)
		}
	})
}

func (c *PrivateCluster) run(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.BinDir, name), args...)
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	cmd.Dir = "/" // the caller's working directory may be closed to the postgres user
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	return nil
}
