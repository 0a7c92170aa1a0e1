@main struct Bridge { static func main() { print("bridge") } }
