import Foundation

/// The files of one input: a fresh folder under the process's own, removed when the input is
/// done, so that no input sees what another left (a crash then reproduces from its file alone).
struct FuzzScratch: ~Copyable {
    let folder: URL

    /// The process's folder, made once; fixtures that every input shares are kept in it.
    static let processFolder: URL = {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-fuzz-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: folder)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // libFuzzer ends the process with exit(): the folder goes with it.
        atexit { try? FileManager.default.removeItem(at: FuzzScratch.processFolder) }
        return folder
    }()

    init() throws(FuzzFinding) {
        folder = Self.processFolder.appendingPathComponent(UUID().uuidString)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw FuzzFinding("cannot make the scratch folder \(folder.path): \(error)")
        }
    }

    func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

    /// Writes bytes to a file of the folder.
    func write(_ data: Data, to name: String) throws(FuzzFinding) -> URL {
        let url = url(name)
        do {
            try data.write(to: url)
        } catch {
            throw FuzzFinding("cannot write \(url.path): \(error)")
        }
        return url
    }

    deinit { try? FileManager.default.removeItem(at: folder) }
}

extension FileManager {
    /// The bytes of a file, or nil when it is absent: for checking that a failed operation left
    /// a file as it was.
    func bytes(of url: URL) -> Data? { contents(atPath: url.path) }
}
