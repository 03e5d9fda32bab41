package cairn

// Version is the release of cairn (the library, its SQL layer and kvsh: one module). kvsh
// -version prints it and SQL's cairn_version() returns it.
const Version = "0.1.0"
