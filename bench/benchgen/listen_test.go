package benchgen

import (
	"net"
	"os"
	"syscall"
)

// listenNoAccept makes a loopback TCP socket listening with backlog 0 that
// nobody accepts from.
func listenNoAccept() (net.Listener, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, err
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	if err := syscall.Listen(fd, 0); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "noaccept")
	defer f.Close()
	return net.FileListener(f)
}
