package machine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wptest/wptest/internal/flock"
)

// Images, as Packer bakes a cloud image: a machine can start from a
// release's rootfs with something already installed on it (a profile's
// packages, a module built from source) instead of the bare rootfs. An
// image is made once per host by a Recipe on a machine of its own, kept in
// CacheDir/images, named by a digest of what went into it (the rootfs it
// sits on and the recipe's Key), so a changed recipe bakes anew and an
// unchanged one is never baked twice. It is read-only once made: each
// machine gets an overlay of it, as of the rootfs.
//
// What a machine made from an image has is what the recipe installed on
// a fresh machine, nothing of that machine's own: its host keys, root's
// authorized keys, downloaded .deb files and temporary files are not kept.

// Recipe says what an image holds and how it is made.
type Recipe struct {
	Suite string // the release it sits on: "bookworm", "trixie"
	// Name says what it holds, for people: part of its directory's name
	// (lower case letters, digits, '-', '+', '.').
	Name string
	// Key is a digest of everything that goes into it (package names,
	// build scripts and their sources): another Key is another image.
	Key string
	// Authorized is root's authorized_keys on the machine it is baked on.
	Authorized string
	// Bake installs it on h, a fresh machine of Suite whose sshd answers.
	Bake func(ctx context.Context, h *Host) error
	Log  io.Writer // progress; nil: none
}

var imageName = regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]{0,80}$`)

// imagesDir holds one directory per image.
func imagesDir() string { return filepath.Join(CacheDir, "images") }

// imageDir is where r's image is kept: its release, name and a digest of
// the rootfs it sits on and r.Key.
func imageDir(r Recipe) string {
	sum := sha256.Sum256([]byte(rootfsKey(r.Suite) + "\n" + r.Key))
	return filepath.Join(imagesDir(), r.Suite+"-"+r.Name+"-"+hex.EncodeToString(sum[:6]))
}

// The files of an image's directory: the layer over the rootfs (the baking
// machine's overlay upper directory), or, where overlayfs could not be
// mounted, its whole root with the marker full; and what made it.
const (
	imageLayer = "layer"
	imageFull  = "full"
	imageMeta  = "image"
)

// EnsureImage returns the directory of r's image (Options.Image), baking
// it first if no process has yet: on a machine made from the bare rootfs,
// under a lock that other processes wanting the same image wait on.
func EnsureImage(ctx context.Context, r Recipe) (string, error) {
	log := r.Log
	if log == nil {
		log = io.Discard
	}
	if Platform(r.Suite) == "" {
		return "", fmt.Errorf("image %s: suite %q: want bookworm or trixie", r.Name, r.Suite)
	}
	if !imageName.MatchString(r.Name) || r.Key == "" || r.Bake == nil {
		return "", fmt.Errorf("image %q: want a name of [a-z0-9+.-], a key and a bake", r.Name)
	}
	dir := imageDir(r)
	if imageReady(dir) {
		return dir, nil
	}
	if err := os.MkdirAll(imagesDir(), 0o755); err != nil {
		return "", err
	}
	waited := time.Now()
	unlock, err := flock.Take(dir+".lock", syscall.LOCK_EX)
	if err != nil {
		return "", err
	}
	defer unlock()
	if imageReady(dir) {
		fmt.Fprintf(log, "netns: waited %s for another process to bake image %s\n", time.Since(waited).Round(100*time.Millisecond), filepath.Base(dir))
		return dir, nil
	}
	fmt.Fprintf(log, "netns: baking image %s (%s), once for this host\n", filepath.Base(dir), Platform(r.Suite))
	start := time.Now()
	if err := bake(ctx, r, dir, log); err != nil {
		return "", fmt.Errorf("bake image %s: %w", r.Name, err)
	}
	fmt.Fprintf(log, "netns: baked image %s in %s\n", filepath.Base(dir), time.Since(start).Round(100*time.Millisecond))
	return dir, nil
}

func imageReady(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, imageMeta))
	return err == nil
}

// bake makes a machine from the bare rootfs, runs the recipe on it, stops
// it and keeps what the recipe changed as the image's layer.
func bake(ctx context.Context, r Recipe, dir string, log io.Writer) (err error) {
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil { // a bake that was cut short
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	hs, err := Make(ctx, Options{Hosts: []Want{{Name: "bake"}}, Suite: r.Suite, Authorized: r.Authorized, Tied: true, Log: log})
	if err != nil {
		return err
	}
	h := hs[0]
	defer func() { err = errors.Join(err, h.Remove()) }()
	if err := r.Bake(ctx, h); err != nil {
		return err
	}
	if err := h.freeze(filepath.Join(tmp, imageLayer)); err != nil {
		return err
	}
	// dpkg on the machine does not sync what it unpacks (dpkgConfig): the
	// layer reaches the disk before the image is marked ready.
	if err := syncFS(tmp); err != nil {
		return err
	}
	meta := fmt.Sprintf("name %s\nsuite %s\nrootfs %s\nkey %s\nbaked %s\n", r.Name, r.Suite, rootfsKey(r.Suite), r.Key, time.Now().UTC().Format(time.RFC3339))
	if h.copied {
		if err := os.WriteFile(filepath.Join(tmp, imageFull), nil, 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, imageMeta), []byte(meta), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// syncFS writes out the filesystem that holds dir (syncfs(2)).
func syncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// notBaked are what a machine has of its own (made for it, or left by
// what ran on it), relative to its root: not part of an image.
var notBaked = []string{
	"etc/ssh/ssh_host_*", "root/.ssh/authorized_keys", "root/.bash_history",
	"var/cache/apt/archives/*.deb", "var/cache/apt/archives/partial/*", "var/cache/apt/*.bin",
	"tmp/*", "var/tmp/*",
}

// freeze stops the machine (its PID 1, and with it every process and mount
// of its namespaces) and moves what it changed to layer: its overlay's
// upper directory, or its whole root where it is a copy.
func (h *Host) freeze(layer string) error {
	if h.cmd == nil || h.cmd.Process == nil {
		return fmt.Errorf("machine %s was not started", h.Name)
	}
	_ = h.cmd.Process.Kill()
	select {
	case <-h.done:
	case <-time.After(time.Minute):
		return fmt.Errorf("machine %s: PID 1 did not exit", h.Name)
	}
	src := h.Root
	if !h.copied {
		if err := unmount(h.Root); err != nil {
			return err
		}
		src = filepath.Join(h.dir, "upper")
	}
	for _, glob := range notBaked {
		m, _ := filepath.Glob(filepath.Join(src, glob))
		for _, f := range m {
			if err := os.RemoveAll(f); err != nil {
				return err
			}
		}
	}
	return os.Rename(src, layer)
}

// imageLowers are the layers a machine made from image is an overlay of,
// top first (overlayfs's lowerdir order), or the one directory to copy
// where overlayfs cannot be mounted (full: the image holds a whole root).
func imageLowers(image, rootfs string) (lowers []string, full bool, err error) {
	b, err := os.ReadFile(filepath.Join(image, imageMeta))
	if err != nil {
		return nil, false, fmt.Errorf("image %s: not baked: %w", image, err)
	}
	if !strings.Contains(string(b), "\nrootfs "+filepath.Base(rootfs)+"\n") {
		return nil, false, fmt.Errorf("image %s was not baked on %s", image, rootfs)
	}
	layer := filepath.Join(image, imageLayer)
	if _, err := os.Stat(filepath.Join(image, imageFull)); err == nil {
		return []string{layer}, true, nil
	}
	return []string{layer, rootfs}, false, nil
}
