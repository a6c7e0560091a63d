# The program of examples/wavefront.sync written as plain Python, for bench/frontend.py:
# CPython compiling this file is the baseline beside syncc parsing and checking the .sync.
N = 31
PENALTY = 10


def nw(refm, out, penalty, tid_x, tid_y, score, ready):
    i = tid_y
    j = tid_x
    if i == 0:
        score[0][j] = -penalty * j
        ready[0][j] = True
    elif j == 0:
        score[i][0] = -penalty * i
        ready[i][0] = True
    else:
        while not (ready[i - 1][j] and ready[i][j - 1]):
            pass
        north = score[i - 1][j]
        west = score[i][j - 1]
        diag = score[i - 1][j - 1]
        score[i][j] = max(diag + refm[i - 1][j - 1], north - penalty, west - penalty)
        ready[i][j] = True
    out[i][j] = score[i][j]


def main(random_ints, zeros, launch):
    refm = random_ints((N, N), seed=2012, low=-10, high=11)
    out = zeros((N + 1, N + 1))
    launch(nw, refm, out, PENALTY)
    ref = zeros((N + 1, N + 1))
    for k in range(0, N + 1):
        ref[0][k] = -PENALTY * k
        ref[k][0] = -PENALTY * k
    for i in range(1, N + 1):
        for j in range(1, N + 1):
            ref[i][j] = max(ref[i - 1][j - 1] + refm[i - 1][j - 1], ref[i - 1][j] - PENALTY, ref[i][j - 1] - PENALTY)
    assert out == ref, "the score matrix differs from the sequential recurrence"
    print("alignment score:", out[N][N])
