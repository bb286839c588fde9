#!/usr/bin/env python3
# How the reference LLRs in sprt_test.cc were computed (needs python3-mpmath;
# not run by ctest).
# Independent reference: maximise sum p log q over q with sum q = 1, sum q a = s
# by Lagrange: q = p / (1 + x (a - s)); x found with mpmath.findroot (50 digits).
import mpmath as mp
mp.mp.dps = 50
def L(e): return 1/(1+mp.power(10, -mp.mpf(e)/400))
def llr(counts, e0, e1):
    m = len(counts)
    a = [mp.mpf(k)/(m-1) for k in range(m)]
    c = [mp.mpf(x) if x > 0 else mp.mpf('0.001') for x in counts]
    N = sum(c); p = [x/N for x in c]
    def q(s):
        f = lambda x: sum(pk*(ak-s)/(1+x*(ak-s)) for pk, ak in zip(p, a))
        lo = -1/(a[-1]-s); hi = -1/(a[0]-s)
        x = mp.findroot(f, (lo*(1-mp.mpf('1e-30')), hi*(1-mp.mpf('1e-30'))), solver='anderson')
        qq = [pk/(1+x*(ak-s)) for pk, ak in zip(p, a)]
        assert abs(sum(qq)-1) < 1e-30 and abs(sum(qk*ak for qk, ak in zip(qq, a)) - s) < 1e-30
        return qq
    q0, q1 = q(L(e0)), q(L(e1))
    return N*sum(pk*mp.log(b/a_) for pk, a_, b in zip(p, q0, q1))
for counts, e0, e1 in [([10,60,200,80,15],0,10), ([5,40,100,45,10],0,10), ([30,70,150,40,10],0,10),
                       ([0,12,50,20,3],-10,0), ([100,300,1000,400,150],0,5), ([2,3,0,1,0,4,2],0,10), ([10,60,200,80,15],0,0)]:
    print(counts, e0, e1, mp.nstr(llr(counts, e0, e1), 15))
# bounds
print(mp.log(mp.mpf('0.05')/mp.mpf('0.95')), mp.log(mp.mpf('0.95')/mp.mpf('0.05')))
